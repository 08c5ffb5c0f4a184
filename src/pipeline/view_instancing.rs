//! View instancing: one draw sent to several views, each reading its own `SV_ViewID` and
//! going to its own viewport and render-target slice (DirectX-Specs, "D3D12 View
//! Instancing Functional Spec").
//!
//! Owns: the pipeline state's `D3D12_VIEW_INSTANCING_DESC` with the command list's
//! `SetViewInstanceMask` ([`ViewInstancingDesc`]), its checks, which views a draw runs
//! ([`ViewInstancingDesc::views`]) and the rule that adds a view's location to the
//! indices the last stage before the rasterizer wrote ([`effective_index`]). Does not
//! own: how a view's pass runs (`draw`), how a program reads `SV_ViewID`
//! (`exec::StageProgram::with_view_id`, `exec::Program::with_view_id`).
//!
//! # Rules
//!
//! - **Count** ("Maximum ViewInstanceCount"): 1 to `D3D12_MAX_VIEW_INSTANCE_COUNT` = 4
//!   views, one location each. A count of 0 (D3D12's "disabled", which behaves as 1) is
//!   written here by giving no view instancing at all: `DrawState::view_instancing =
//!   None`. Without view instancing every program reading `SV_ViewID` reads 0
//!   ("View Instancing Declaration": "Shaders that input SV_ViewID will only see the
//!   value 0").
//! - **Locations** ("View Instance Locations"; `D3D12_VIEW_INSTANCE_LOCATION`): view
//!   `v`'s primitives go to viewport `location.viewport + VPAI` and render-target array
//!   slice `location.render_target_slice + RTAI`, where VPAI and RTAI are the
//!   `SV_ViewportArrayIndex` and `SV_RenderTargetArrayIndex` the stage feeding the
//!   rasterizer wrote for the primitive (0 when it writes none), added "via 32 bit UINT
//!   arithmetic (which can wrap)"; a sum out of range goes to index 0 of its array. A
//!   location's viewport index must be below
//!   `D3D12_VIEWPORT_AND_SCISSORRECT_OBJECT_COUNT_PER_PIPELINE` (16) and its slice below
//!   `D3D12_REQ_TEXTURE2D_ARRAY_AXIS_DIMENSION` (2048): the ranges of the indices the
//!   locations stand for, checked here before the draw as dxlane's choice (a location
//!   past them could only ever select index 0).
//! - **Masking** ("View Instance Masking", "SetViewInstanceMask"): with
//!   `D3D12_VIEW_INSTANCING_FLAG_ENABLE_VIEW_INSTANCE_MASKING`, view `v` runs only when
//!   bit `v` of the command list's mask is set; no stage runs for a masked view, and a
//!   mask of 0 (the command list's default) draws nothing. Here the flag and the mask
//!   are one field, [`ViewInstancingDesc::mask`]: `Some(mask)` is the flag with
//!   `SetViewInstanceMask(mask)`; `None` is no flag, every view drawn.
//!
//! # How dxlane runs the views
//!
//! The whole pipeline runs once per view, view 0 first, each pass with its view's
//! `SV_ViewID` and location: the draw-level looping the spec's "Implementation
//! Flexibility" and tier 1 describe ("a basic implementation could loop draw calls at
//! the top of the pipeline"). The spec lets an implementation instance anywhere from
//! there to the first stage that reads `SV_ViewID`, and what differs between those
//! choices is only what the spec leaves to the implementation: how often a stage that
//! does not read `SV_ViewID` runs (visible through UAV writes and pipeline statistics,
//! "UAV Accesses", "Pipeline Statistics Interaction"), and the order of primitives of
//! different views ("View Instancing Work Ordering Semantics": per view, primitives
//! retire in draw order; across views no order is promised, and overlapping views on
//! one slice are undefined). Looping the whole draw is the one choice under which every
//! stage sees exactly the inputs of a draw of its own view, so a program's result never
//! depends on which other views were drawn; its counts (vertices shaded, lane
//! instructions) are each view's counts added up.
//!
//! Stream output is not combined with more than one view: the spec does not say which
//! view's primitives stream out, and writing each view's would give records no
//! implementation is known to give; such a draw is refused by name.

use super::state::VIEWPORTS;

/// `D3D12_MAX_VIEW_INSTANCE_COUNT`: the most views a pipeline state declares.
pub const MAX_VIEW_INSTANCE_COUNT: usize = 4;

/// `D3D12_REQ_TEXTURE2D_ARRAY_AXIS_DIMENSION`: the most slices of a 2D texture array,
/// and so one past the largest render-target slice a location may name.
pub const MAX_ARRAY_SLICES: u32 = 2048;

/// `D3D12_VIEW_INSTANCE_LOCATION`: where one view's primitives go before the indices
/// the program wrote are added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ViewInstanceLocation {
    /// `ViewportArrayIndex`: the viewport (and its scissor rectangle).
    pub viewport: u32,
    /// `RenderTargetArrayIndex`: the render-target (and depth-stencil) array slice.
    pub render_target_slice: u32,
}

/// `D3D12_VIEW_INSTANCING_DESC`, with the command list's view instance mask.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ViewInstancingDesc {
    /// One location per view (`ViewInstanceCount` = its length, 1 to
    /// [`MAX_VIEW_INSTANCE_COUNT`]).
    pub locations: Vec<ViewInstanceLocation>,
    /// `Some(mask)`: `D3D12_VIEW_INSTANCING_FLAG_ENABLE_VIEW_INSTANCE_MASKING` with
    /// `SetViewInstanceMask(mask)` (bit `v`: view `v` runs). `None`: every view runs.
    pub mask: Option<u32>,
}

/// A view-instancing state the draw refuses: which field and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("view instancing: {field}: {message}")]
pub struct ViewInstancingError {
    /// The field, as the job file spells it (`count`, `locations[1].viewport`).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl ViewInstancingDesc {
    /// Checks the count and the locations (see the module doc).
    pub fn check(&self) -> Result<(), ViewInstancingError> {
        let n = self.locations.len();
        if !(1..=MAX_VIEW_INSTANCE_COUNT).contains(&n) {
            return Err(ViewInstancingError {
                field: "count".into(),
                message: format!(
                    "{n} views; a pipeline declares 1 to {MAX_VIEW_INSTANCE_COUNT} (D3D12_MAX_VIEW_INSTANCE_COUNT), and no view instancing at all for D3D12's count 0"
                ),
            });
        }
        for (i, l) in self.locations.iter().enumerate() {
            if l.viewport as usize >= VIEWPORTS {
                return Err(ViewInstancingError {
                    field: format!("locations[{i}].viewport"),
                    message: format!(
                        "{}; a viewport index is below {VIEWPORTS} (D3D12_VIEWPORT_AND_SCISSORRECT_OBJECT_COUNT_PER_PIPELINE)",
                        l.viewport
                    ),
                });
            }
            if l.render_target_slice >= MAX_ARRAY_SLICES {
                return Err(ViewInstancingError {
                    field: format!("locations[{i}].render_target_slice"),
                    message: format!(
                        "{}; a render-target array slice is below {MAX_ARRAY_SLICES} (D3D12_REQ_TEXTURE2D_ARRAY_AXIS_DIMENSION)",
                        l.render_target_slice
                    ),
                });
            }
        }
        Ok(())
    }

    /// The views a draw runs, in order: each view's `SV_ViewID` and location, skipping
    /// the views the mask turns off.
    pub fn views(&self) -> impl Iterator<Item = (u32, ViewInstanceLocation)> + '_ {
        self.locations
            .iter()
            .enumerate()
            .filter(|&(v, _)| self.mask.is_none_or(|m| m & (1 << v) != 0))
            .map(|(v, &l)| (v as u32, l))
    }
}

/// The index a primitive goes to: the view location's `base` plus the index the program
/// wrote (`written`, 0 when it writes none), in wrapping 32-bit arithmetic, and index 0
/// when the sum is not below `count`, the number of viewports or slices (DirectX-Specs,
/// "View Instance Locations"; `D3D12_VIEW_INSTANCE_LOCATION`: "the effective index
/// becomes 0"). Without view instancing `base` is 0, which is the plain out-of-range
/// rule of `SV_ViewportArrayIndex` and `SV_RenderTargetArrayIndex`.
pub fn effective_index(base: u32, written: u32, count: u32) -> u32 {
    let k = base.wrapping_add(written);
    if k < count { k } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(locations: &[(u32, u32)], mask: Option<u32>) -> ViewInstancingDesc {
        ViewInstancingDesc {
            locations: locations
                .iter()
                .map(|&(viewport, render_target_slice)| ViewInstanceLocation {
                    viewport,
                    render_target_slice,
                })
                .collect(),
            mask,
        }
    }

    /// "View Instance Locations": the location and the written index add with 32-bit
    /// wrapping; a sum at or past the count selects 0.
    #[test]
    fn locations_add_to_the_written_index_wrapping_and_out_of_range_is_zero() {
        assert_eq!(effective_index(1, 2, 4), 3);
        assert_eq!(effective_index(2, 2, 4), 0, "4 is past 4 slices");
        assert_eq!(
            effective_index(3, u32::MAX, 4),
            2,
            "wraps: 3 + (2^32 - 1) = 2"
        );
        assert_eq!(effective_index(0, 0, 1), 0);
        assert_eq!(effective_index(5, 0, 0), 0, "nothing bound: index 0");
    }

    /// "Maximum ViewInstanceCount" and "SetViewInstanceMask": 1 to 4 views; the mask
    /// keeps the views whose bit is set, and 0 keeps none.
    #[test]
    fn counts_locations_and_the_mask() {
        assert!(desc(&[(0, 0)], None).check().is_ok());
        assert!(desc(&[(0, 0); 4], None).check().is_ok());
        let e = desc(&[(0, 0); 5], None).check().unwrap_err();
        assert_eq!(e.field, "count");
        assert!(e.to_string().contains("5 views"), "{e}");
        assert_eq!(desc(&[], None).check().unwrap_err().field, "count");
        let e = desc(&[(0, 0), (16, 0)], None).check().unwrap_err();
        assert_eq!(e.field, "locations[1].viewport");
        assert!(e.message.starts_with("16;"), "{e}");
        let e = desc(&[(0, 2048)], None).check().unwrap_err();
        assert_eq!(e.field, "locations[0].render_target_slice");
        assert!(desc(&[(15, 2047)], None).check().is_ok());
        let ids = |d: &ViewInstancingDesc| d.views().map(|(v, _)| v).collect::<Vec<_>>();
        let four = [(0, 3), (1, 2), (2, 1), (3, 0)];
        assert_eq!(ids(&desc(&four, None)), [0, 1, 2, 3]);
        assert_eq!(ids(&desc(&four, Some(0b1011))), [0, 1, 3]);
        assert_eq!(ids(&desc(&four, Some(0))), [0u32; 0]);
        assert_eq!(
            ids(&desc(&four[..2], Some(u32::MAX))),
            [0, 1],
            "bits past the count"
        );
        let (_, l) = desc(&four, Some(0b100)).views().next().unwrap();
        assert_eq!(l.render_target_slice, 1);
    }
}
