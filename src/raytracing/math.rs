//! The 3×4 affine transforms of instances and geometries, and small vector helpers.

/// A 3×4 affine transform in D3D12's row-major layout (`Transform3x4` of
/// `D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC`, `Transform` of
/// `D3D12_RAYTRACING_INSTANCE_DESC`): `x' = m[0]·x + m[1]·y + m[2]·z + m[3]`, the next
/// four values give `y'`, the last four `z'`.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Transform3x4(pub [f32; 12]);

impl Default for Transform3x4 {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform3x4 {
    /// The identity.
    pub const IDENTITY: Self = Self([1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]);

    /// The three rows (`float3x4`, as `ObjectToWorld3x4()` returns them).
    pub fn rows(&self) -> [[f32; 4]; 3] {
        let m = &self.0;
        [
            [m[0], m[1], m[2], m[3]],
            [m[4], m[5], m[6], m[7]],
            [m[8], m[9], m[10], m[11]],
        ]
    }

    /// The transpose as four rows of three (`float4x3`, as `ObjectToWorld4x3()` returns
    /// it).
    pub fn to_4x3(&self) -> [[f32; 3]; 4] {
        let m = &self.0;
        [
            [m[0], m[4], m[8]],
            [m[1], m[5], m[9]],
            [m[2], m[6], m[10]],
            [m[3], m[7], m[11]],
        ]
    }

    /// The image of point `p`, each row summed left to right in `f32`
    /// (`((m0·x + m1·y) + m2·z) + m3`), so the same inputs always give the same bits.
    pub fn transform_point(&self, p: [f32; 3]) -> [f32; 3] {
        let m = &self.0;
        [
            m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3],
            m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7],
            m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11],
        ]
    }

    /// The image of direction `v` (the translation column left out).
    pub fn transform_vector(&self, v: [f32; 3]) -> [f32; 3] {
        let m = &self.0;
        [
            m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
            m[4] * v[0] + m[5] * v[1] + m[6] * v[2],
            m[8] * v[0] + m[9] * v[1] + m[10] * v[2],
        ]
    }

    /// The determinant of the 3×3 part, in `f64`.
    pub fn determinant(&self) -> f64 {
        let m = self.0.map(f64::from);
        m[0] * (m[5] * m[10] - m[6] * m[9]) - m[1] * (m[4] * m[10] - m[6] * m[8])
            + m[2] * (m[4] * m[9] - m[5] * m[8])
    }

    /// Whether every element is finite.
    pub fn is_finite(&self) -> bool {
        self.0.iter().all(|v| v.is_finite())
    }

    /// The inverse affine transform, computed in `f64` and rounded once to `f32`; `None`
    /// when an element is not finite, the 3×3 part is singular, or the inverse does not
    /// fit in `f32`.
    pub fn inverse(&self) -> Option<Self> {
        if !self.is_finite() {
            return None;
        }
        let m = self.0.map(f64::from);
        let det = self.determinant();
        if det == 0.0 || !det.is_finite() {
            return None;
        }
        // Adjugate of the 3×3 part over the determinant.
        let a = [
            (m[5] * m[10] - m[6] * m[9]) / det,
            (m[2] * m[9] - m[1] * m[10]) / det,
            (m[1] * m[6] - m[2] * m[5]) / det,
            (m[6] * m[8] - m[4] * m[10]) / det,
            (m[0] * m[10] - m[2] * m[8]) / det,
            (m[2] * m[4] - m[0] * m[6]) / det,
            (m[4] * m[9] - m[5] * m[8]) / det,
            (m[1] * m[8] - m[0] * m[9]) / det,
            (m[0] * m[5] - m[1] * m[4]) / det,
        ];
        let t = [m[3], m[7], m[11]];
        let mut out = [0.0f32; 12];
        for r in 0..3 {
            let row = [a[3 * r], a[3 * r + 1], a[3 * r + 2]];
            let tr = -(row[0] * t[0] + row[1] * t[1] + row[2] * t[2]);
            out[4 * r] = row[0] as f32;
            out[4 * r + 1] = row[1] as f32;
            out[4 * r + 2] = row[2] as f32;
            out[4 * r + 3] = tr as f32;
        }
        let inv = Self(out);
        inv.is_finite().then_some(inv)
    }

    /// The 3×3 part's infinity norm (the largest row sum of magnitudes).
    pub(crate) fn linear_norm(&self) -> f64 {
        self.rows()
            .iter()
            .map(|r| r[..3].iter().map(|v| f64::from(v.abs())).sum::<f64>())
            .fold(0.0, f64::max)
    }
}

/// `a - b`, component by component.
#[inline(always)]
pub(crate) fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Whether every component is finite.
#[inline(always)]
pub(crate) fn finite3(a: [f32; 3]) -> bool {
    a[0].is_finite() && a[1].is_finite() && a[2].is_finite()
}

/// The largest magnitude of the components.
#[inline(always)]
pub(crate) fn max_abs3(a: [f32; 3]) -> f32 {
    a[0].abs().max(a[1].abs()).max(a[2].abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_undoes_the_transform() {
        // A rotation about z by 90°, a scale of 2 in x, a translation.
        let t = Transform3x4([0.0, -1.0, 0.0, 3.0, 2.0, 0.0, 0.0, -1.0, 0.0, 0.0, 1.0, 5.0]);
        let inv = t.inverse().unwrap();
        let p = [0.25, -4.0, 7.5];
        assert_eq!(inv.transform_point(t.transform_point(p)), p);
        assert_eq!(t.determinant(), 2.0);
        assert!(Transform3x4([0.0; 12]).inverse().is_none());
        let mut nan = Transform3x4::IDENTITY;
        nan.0[5] = f32::NAN;
        assert!(nan.inverse().is_none());
        assert_eq!(t.to_4x3()[3], [3.0, -1.0, 5.0]);
    }
}
