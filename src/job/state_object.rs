//! The state object a `[rays]` job makes of its DXIL libraries: the libraries'
//! subobjects (`RDAT`'s subobject table) resolved for the pipeline's exports, as the
//! D3D12 runtime resolves them when it creates a raytracing pipeline state object.
//!
//! Owns: merging the libraries' subobjects; which shader configuration, pipeline
//! configuration, global and local root signature each export gets (explicit and
//! default associations, hit groups); the hit groups the libraries define. Does not
//! own: decoding the records (`container::rdat::subobjects`), checking programs against
//! the configuration (`job::rays`).
//!
//! # Rules (DXR functional spec, "Subobject association behavior" and
//! "Subobject association requirements")
//!
//! - **Explicit associations** (`SubobjectToExportsAssociation` with exports) reach
//!   exports in any library. Two explicit associations of different definitions of one
//!   subobject type to one export are a conflict ("Conflicting subobject associations").
//! - **Default associations**: an export with no explicit association of a type takes
//!   its own library's default of that type: a subobject associated with an empty
//!   export list, or a subobject no association of that library names ("Declaring a
//!   default association"). Two different defaults for one export are a conflict.
//! - **Hit groups**: an association to a hit group applies to its programs; where both
//!   the group and its programs have one, they must match, and without one on the group
//!   its programs' must match ("Subobject associations for hit groups").
//! - **Shader and pipeline configuration**: one definition for every export of the
//!   pipeline ("Required & matching for all exports"); two are an error naming both.
//!   dxlane is lenient in one way: an export its library gives no configuration (a
//!   library without subobjects) takes the pipeline's, as if the job had declared it
//!   with a default association.
//! - **Names**: a subobject name declared by several libraries with the same definition
//!   is one subobject (dxc writes a library's whole subobject table into each
//!   export-limited build); with different definitions it is an error naming both
//!   libraries, as a state object's names are unique.
//!
//! State-object configuration flags concern collections only and are read but not
//! used.

use std::collections::BTreeMap;

use crate::container::rdat::{RdatSubobject, SubobjectDesc};

/// A library's name in messages (its job key, e.g. `libraries[1]`) and subobjects.
pub(crate) struct LibrarySubobjects<'a> {
    /// The job key naming the library.
    pub key: &'a str,
    /// The export names of its programs.
    pub exports: Vec<&'a str>,
    /// Its subobjects, in table order.
    pub subobjects: &'a [RdatSubobject],
}

/// A subobject as the pipeline sees it: its definition, name and library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The subobject's name.
    pub name: String,
    /// The key of the (first) library declaring it.
    pub library: String,
    /// Its definition.
    pub desc: SubobjectDesc,
}

impl Found {
    /// `"name" (libraries[1])`, for messages.
    pub fn label(&self) -> String {
        format!(
            "{} \"{}\" ({})",
            self.desc.type_name(),
            self.name,
            self.library
        )
    }
}

/// The subobject types that are associated with exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Associated {
    /// `RaytracingShaderConfig`.
    ShaderConfig,
    /// `RaytracingPipelineConfig` / `RaytracingPipelineConfig1`.
    PipelineConfig,
    /// `GlobalRootSignature`.
    GlobalRootSignature,
    /// `LocalRootSignature`.
    LocalRootSignature,
}

impl Associated {
    fn of(d: &SubobjectDesc) -> Option<Associated> {
        Some(match d {
            SubobjectDesc::ShaderConfig { .. } => Associated::ShaderConfig,
            SubobjectDesc::PipelineConfig { .. } => Associated::PipelineConfig,
            SubobjectDesc::GlobalRootSignature { .. } => Associated::GlobalRootSignature,
            SubobjectDesc::LocalRootSignature { .. } => Associated::LocalRootSignature,
            _ => return None,
        })
    }
}

/// The merged subobjects of a pipeline's libraries.
pub(crate) struct StateObject<'a> {
    libs: &'a [LibrarySubobjects<'a>],
    /// Every named subobject (first declaration, definitions checked equal).
    by_name: BTreeMap<&'a str, Found>,
}

impl<'a> StateObject<'a> {
    /// Merges the libraries' subobjects (see the module doc for duplicate names).
    pub fn new(libs: &'a [LibrarySubobjects<'a>]) -> Result<StateObject<'a>, String> {
        let mut by_name: BTreeMap<&str, Found> = BTreeMap::new();
        for lib in libs {
            for s in lib.subobjects {
                match by_name.get(s.name.as_str()) {
                    Some(f) if f.desc != s.desc => {
                        return Err(format!(
                            "the libraries declare two subobjects named \"{}\": {} in {} and {} in {} (subobject names are unique in a state object)",
                            s.name,
                            f.desc.type_name(),
                            f.library,
                            s.desc.type_name(),
                            lib.key
                        ));
                    }
                    Some(_) => {}
                    None => {
                        by_name.insert(
                            s.name.as_str(),
                            Found {
                                name: s.name.clone(),
                                library: lib.key.to_string(),
                                desc: s.desc.clone(),
                            },
                        );
                    }
                }
            }
        }
        Ok(StateObject { libs, by_name })
    }

    /// The hit group the libraries define under `name`, if any.
    pub fn hit_group(&self, name: &str) -> Option<&Found> {
        self.by_name
            .get(name)
            .filter(|f| matches!(f.desc, SubobjectDesc::HitGroup { .. }))
    }

    /// The library index declaring export `name`, or a hit group of that name.
    fn scope_of(&self, name: &str) -> Option<usize> {
        self.libs.iter().position(|l| {
            l.exports.contains(&name)
                || l.subobjects
                    .iter()
                    .any(|s| s.name == name && matches!(s.desc, SubobjectDesc::HitGroup { .. }))
        })
    }

    /// The subobject of type `ty` associated with the export or hit group `export`
    /// (`None`: none), by the explicit, then the default association rules.
    pub fn associated(&self, export: &str, ty: Associated) -> Result<Option<Found>, String> {
        let of_type = |n: &str| {
            self.by_name
                .get(n)
                .filter(|f| Associated::of(&f.desc) == Some(ty))
        };
        // Explicit associations, from every library.
        let mut explicit: Vec<(&Found, &str)> = Vec::new();
        for lib in self.libs {
            for s in lib.subobjects {
                if let SubobjectDesc::Association { subobject, exports } = &s.desc
                    && exports.iter().any(|e| e == export)
                    && let Some(f) = of_type(subobject)
                {
                    explicit.push((f, s.name.as_str()));
                }
            }
        }
        if let Some(pick) = one(&explicit, export, "explicit associations")? {
            return Ok(Some(pick));
        }
        // Defaults of the export's own library.
        let Some(lib) = self.scope_of(export).and_then(|i| self.libs.get(i)) else {
            return Ok(None);
        };
        let mut defaults: Vec<(&Found, &str)> = Vec::new();
        for s in lib.subobjects {
            match &s.desc {
                SubobjectDesc::Association { subobject, exports } if exports.is_empty() => {
                    if let Some(f) = of_type(subobject) {
                        defaults.push((f, s.name.as_str()));
                    }
                }
                d if Associated::of(d) == Some(ty) => {
                    let named = lib.subobjects.iter().any(|a| {
                        matches!(&a.desc, SubobjectDesc::Association { subobject, .. } if *subobject == s.name)
                    });
                    if !named && let Some(f) = self.by_name.get(s.name.as_str()) {
                        defaults.push((f, s.name.as_str()));
                    }
                }
                _ => {}
            }
        }
        one(&defaults, export, "default associations")
    }

    /// The subobject of type `ty` of a hit group and its programs, checked to match
    /// (see the module doc).
    pub fn associated_to_group(
        &self,
        group: &str,
        programs: &[&str],
        ty: Associated,
    ) -> Result<Option<Found>, String> {
        let own = self.associated(group, ty)?;
        let mut seen: Option<(Found, &str)> = None;
        for p in programs {
            let Some(f) = self.associated(p, ty)? else {
                continue;
            };
            if let Some(g) = &own {
                if g.desc != f.desc {
                    return Err(format!(
                        "hit group \"{group}\" is associated with {}, but its program \"{p}\" with {} (a hit group's and its programs' associations must match)",
                        g.label(),
                        f.label()
                    ));
                }
            } else if let Some((s, q)) = &seen
                && s.desc != f.desc
            {
                return Err(format!(
                    "hit group \"{group}\": its program \"{q}\" is associated with {}, but \"{p}\" with {} (a hit group's programs must share one)",
                    s.label(),
                    f.label()
                ));
            }
            if seen.is_none() {
                seen = Some((f, p));
            }
        }
        Ok(own.or(seen.map(|(f, _)| f)))
    }
}

/// The one definition among `cands` (several subobjects of one definition count as
/// one), or a conflict naming two.
fn one(cands: &[(&Found, &str)], export: &str, what: &str) -> Result<Option<Found>, String> {
    let Some((first, _)) = cands.first() else {
        return Ok(None);
    };
    if let Some((other, _)) = cands.iter().find(|(f, _)| f.desc != first.desc) {
        return Err(format!(
            "\"{export}\": {what} give it both {} and {} (conflicting subobject associations)",
            first.label(),
            other.label()
        ));
    }
    Ok(Some((*first).clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn so(name: &str, desc: SubobjectDesc) -> RdatSubobject {
        RdatSubobject {
            name: name.into(),
            desc,
        }
    }

    fn shader(p: u32) -> SubobjectDesc {
        SubobjectDesc::ShaderConfig {
            max_payload_size: p,
            max_attribute_size: 8,
        }
    }

    fn local(b: u8) -> SubobjectDesc {
        SubobjectDesc::LocalRootSignature { bytes: vec![b] }
    }

    fn assoc(s: &str, exports: &[&str]) -> SubobjectDesc {
        SubobjectDesc::Association {
            subobject: s.into(),
            exports: exports.iter().map(|e| e.to_string()).collect(),
        }
    }

    fn payload(f: Option<Found>) -> Option<u32> {
        match f.map(|f| f.desc) {
            Some(SubobjectDesc::ShaderConfig {
                max_payload_size, ..
            }) => Some(max_payload_size),
            _ => None,
        }
    }

    /// DXR spec "Declaring a default association": an unnamed subobject is its
    /// library's default; an empty export list declares one too; neither reaches
    /// another library's exports.
    #[test]
    fn defaults_stay_in_their_library() {
        let a = [so("cfg", shader(16))];
        let b = [so("cfg_b", shader(24)), so("d", assoc("cfg_b", &[]))];
        let libs = [
            LibrarySubobjects {
                key: "libraries[0]",
                exports: vec!["miss"],
                subobjects: &a,
            },
            LibrarySubobjects {
                key: "libraries[1]",
                exports: vec!["hit"],
                subobjects: &b,
            },
            LibrarySubobjects {
                key: "libraries[2]",
                exports: vec!["raygen"],
                subobjects: &[],
            },
        ];
        let s = StateObject::new(&libs).unwrap();
        let at = |e| payload(s.associated(e, Associated::ShaderConfig).unwrap());
        assert_eq!(at("miss"), Some(16));
        assert_eq!(at("hit"), Some(24));
        assert_eq!(at("raygen"), None);
    }

    /// DXR spec "Explicit associations" reach any library and take precedence over
    /// defaults ("Behavior of a default association": candidates are exports without
    /// an explicit association); "Conflicting subobject associations" are errors.
    #[test]
    fn explicit_associations_win_and_conflict() {
        let a = [
            so("small", shader(8)),
            so("big", shader(32)),
            so("to_hit", assoc("big", &["hit", "raygen"])),
        ];
        let b = [so("other", shader(8)), so("x", assoc("other", &["hit"]))];
        let libs = [
            LibrarySubobjects {
                key: "libraries[0]",
                exports: vec!["hit"],
                subobjects: &a,
            },
            LibrarySubobjects {
                key: "libraries[1]",
                exports: vec!["raygen"],
                subobjects: &b,
            },
        ];
        let s = StateObject::new(&libs).unwrap();
        // raygen: explicitly "big" from the other library, over its own default.
        assert_eq!(
            payload(s.associated("raygen", Associated::ShaderConfig).unwrap()),
            Some(32)
        );
        let e = s.associated("hit", Associated::ShaderConfig).unwrap_err();
        assert!(
            e.contains("\"hit\"") && e.contains("\"big\"") && e.contains("\"other\""),
            "{e}"
        );
        // An export no library declares has no default.
        assert_eq!(s.associated("nothing", Associated::ShaderConfig), Ok(None));
    }

    /// Two defaults of different definitions for one export conflict; the same
    /// definition under two names does not.
    #[test]
    fn ambiguous_defaults_conflict() {
        let a = [so("one", shader(8)), so("two", shader(12))];
        let b = [so("three", shader(8)), so("four", shader(8))];
        let libs = [
            LibrarySubobjects {
                key: "libraries[0]",
                exports: vec!["miss"],
                subobjects: &a,
            },
            LibrarySubobjects {
                key: "libraries[1]",
                exports: vec!["hit"],
                subobjects: &b,
            },
        ];
        let s = StateObject::new(&libs).unwrap();
        let e = s.associated("miss", Associated::ShaderConfig).unwrap_err();
        assert!(e.contains("default associations"), "{e}");
        assert_eq!(
            payload(s.associated("hit", Associated::ShaderConfig).unwrap()),
            Some(8)
        );
    }

    /// DXR spec "Subobject associations for hit groups": the group's association applies
    /// to its programs and must match theirs; without one, the programs' must match.
    #[test]
    fn hit_group_associations_match() {
        let group = SubobjectDesc::HitGroup {
            kind: 0,
            any_hit: "ah".into(),
            closest_hit: "ch".into(),
            intersection: String::new(),
        };
        let a = [
            so("g", group),
            so("l1", local(1)),
            so("l2", local(2)),
            so("x", assoc("l1", &["ch"])),
            so("y", assoc("l2", &["ah"])),
        ];
        let libs = [LibrarySubobjects {
            key: "library",
            exports: vec!["ch", "ah"],
            subobjects: &a,
        }];
        let s = StateObject::new(&libs).unwrap();
        let e = s
            .associated_to_group("g", &["ch", "ah"], Associated::LocalRootSignature)
            .unwrap_err();
        assert!(e.contains("must share one"), "{e}");
        let ok = s
            .associated_to_group("g", &["ch"], Associated::LocalRootSignature)
            .unwrap();
        assert_eq!(ok.map(|f| f.name), Some("l1".to_string()));
        let b = [
            so("l1", local(1)),
            so("l2", local(2)),
            so("x", assoc("l1", &["ch"])),
            so("y", assoc("l2", &["g"])),
        ];
        let libs = [LibrarySubobjects {
            key: "library",
            exports: vec!["ch"],
            subobjects: &b,
        }];
        let s = StateObject::new(&libs).unwrap();
        let e = s
            .associated_to_group("g", &["ch"], Associated::LocalRootSignature)
            .unwrap_err();
        assert!(e.contains("must match"), "{e}");
    }

    /// One name, two definitions in two libraries: refused naming both libraries; the
    /// same definition twice is one subobject.
    #[test]
    fn names_are_unique_across_libraries() {
        let a = [so("cfg", shader(8))];
        let b = [so("cfg", shader(8))];
        let c = [so("cfg", shader(12))];
        let lib = |key, s| LibrarySubobjects {
            key,
            exports: vec![],
            subobjects: s,
        };
        assert!(StateObject::new(&[lib("a", &a), lib("b", &b)]).is_ok());
        let libs = [lib("a", &a), lib("c", &c)];
        let e = StateObject::new(&libs).err().unwrap();
        assert!(
            e.contains("\"cfg\"") && e.contains(" a ") && e.contains(" c "),
            "{e}"
        );
    }
}
