//! The device description `dxlane offload --api-query` prints, in the shape of the
//! suite's `api-query` (`Devices:`, then per device `API`, `Description` and
//! `Features`), so the suite's lit configuration can configure itself against dxlane.
//!
//! The feature names are `D3D12_FEATURE_DATA_*` fields, as the suite's Direct3D device
//! reports them; the lit configuration reads `Native16BitShaderOpsSupported` (→ `Int16`,
//! `Half`), `DoublePrecisionFloatShaderOps` (→ `Double`) and `Int64ShaderOps` (→
//! `Int64`). A feature is true only when dxlane runs it: `MeshShaderTier` is `Tier1`
//! (`DXFeatures.def`'s name) since `dxlane offload` runs mesh pipelines, `MSAA_4xSamples`
//! (`Device.cpp`'s capability) is true since it runs multisampled render targets, and
//! `RaytracingTier` is `1.1` (`DXFeatures.def` prints the tier's number): `dxlane
//! offload` runs ray tracing pipelines (`DispatchRays`) and inline ray queries in every
//! stage, the two things tier 1.1 adds up to. `HighestShaderModel` is the highest model
//! the DXIL reader takes (`lower::dxil::HIGHEST_SHADER_MODEL`).

use crate::exec::Profile;

/// What the description says about the WARP identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Identity {
    /// dxlane's own name and profile.
    Dxlane,
    /// The name, with "Microsoft Basic Render Driver" in it, so that a lit configuration
    /// run with WARP selected picks dxlane as the WARP device and applies the suite's
    /// `DirectX-WARP` XFAILs (dxlane gives WARP's answers, so WARP's known failures are
    /// expected of it too).
    AsWarp,
}

/// The `api-query` text for dxlane under `profile`.
pub fn describe(profile: &Profile, identity: Identity) -> String {
    let name = format!(
        "dxlane {} (WARP profile {})",
        env!("CARGO_PKG_VERSION"),
        profile.name
    );
    let description = match identity {
        Identity::Dxlane => name,
        Identity::AsWarp => format!("Microsoft Basic Render Driver, emulated by {name}"),
    };
    let features: [(&str, String); 10] = [
        ("HighestShaderModel", {
            let (major, minor) = crate::lower::dxil::HIGHEST_SHADER_MODEL;
            format!("{major}.{minor}")
        }),
        ("WaveOps", "true".into()),
        ("WaveLaneCountMin", "4".into()),
        ("WaveLaneCountMax", "128".into()),
        ("Native16BitShaderOpsSupported", "true".into()),
        ("DoublePrecisionFloatShaderOps", "true".into()),
        ("Int64ShaderOps", "true".into()),
        ("MeshShaderTier", "Tier1".into()),
        ("MSAA_4xSamples", "true".into()),
        ("RaytracingTier", "1.1".into()),
    ];
    let mut s = String::from("Devices:\n- API: DirectX\n");
    s.push_str(&format!("  Description: {description}\n  Features: \n"));
    for (k, v) in features {
        s.push_str(&format!("    {k}: {v}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lit configuration parses the text as YAML and reads `Devices[*].API`,
    /// `Description` and `Features` (`test/lit.cfg.py`); the WARP identity carries the
    /// substring it looks for.
    #[test]
    fn reads_as_the_suite_reads_it() {
        let p = Profile::by_name("latest").unwrap();
        let v: serde_norway::Value =
            serde_norway::from_str(&describe(&p, Identity::AsWarp)).unwrap();
        let d = &v["Devices"][0];
        assert_eq!(d["API"].as_str(), Some("DirectX"));
        assert!(
            d["Description"]
                .as_str()
                .unwrap()
                .contains("Microsoft Basic Render Driver")
        );
        assert_eq!(d["Features"]["Int64ShaderOps"].as_bool(), Some(true));
        // Mesh pipelines, multisampled targets, ray tracing pipelines and inline ray
        // queries run.
        assert_eq!(d["Features"]["MeshShaderTier"].as_str(), Some("Tier1"));
        assert_eq!(d["Features"]["MSAA_4xSamples"].as_bool(), Some(true));
        // YAML reads `1.1` as a number; lit compares the text.
        assert!(describe(&p, Identity::Dxlane).contains("    RaytracingTier: 1.1\n"));
        // The highest shader model is the DXIL reader's, not a literal.
        let (major, minor) = crate::lower::dxil::HIGHEST_SHADER_MODEL;
        assert!(
            describe(&p, Identity::Dxlane)
                .contains(&format!("    HighestShaderModel: {major}.{minor}\n"))
        );
        let plain: serde_norway::Value =
            serde_norway::from_str(&describe(&p, Identity::Dxlane)).unwrap();
        assert!(
            !plain["Devices"][0]["Description"]
                .as_str()
                .unwrap()
                .contains("Microsoft")
        );
    }
}
