//! Lane loops compiled twice: for the x86-64 baseline (SSE2, four 32-bit lanes per
//! instruction) and for AVX2 with FMA (eight), the second run when the processor has
//! both (every x86 processor with AVX2 so far also has FMA).
//!
//! The pixel path's hot loops (the footprints and taps of a wave's texture samples, the
//! output merger's texel conversion) are written as plain loops over a wave's lanes,
//! which the compiler vectorises; built for the baseline, it can use only 128-bit
//! vectors. The ray walk (`raytracing::traverse`) is compiled both ways too: its AVX2
//! copy, with the ray's preparation inlined, took 2.85–2.87× Embree's time per
//! primary ray where the baseline copy took 2.99–3.04× (`docs/raytracing.md`). [`wide_fn!`] defines a function whose body is compiled both ways and runs the
//! AVX2 copy when `is_x86_feature_detected!` says the processor has AVX2 and FMA — measured
//! on the bilinear decode-and-interpolate loop of `sample_site`: 3.4 ns a lane with
//! 128-bit vectors, 1.7 ns with 256-bit ones.
//!
//! Both copies compute the same bits: Rust never contracts `a * b + c` into a fused
//! multiply-add or reorders float operations, whatever the target features, and every
//! operation these loops use (IEEE add, multiply, divide, compare, conversions between
//! integers and floats, integer and bit operations) has one result on every x86 vector
//! width. The tests that hold these loops to their references run the AVX2 copy on a
//! machine that has AVX2, and the baseline copy elsewhere.
//!
//! A fused multiply-add written out (`f32::mul_add`) has one result everywhere too, but
//! without the FMA feature it is a library call, far slower than what it replaces. So
//! each copy's body sees a constant `FMA`: `true` in the AVX2 copy, where `mul_add` is
//! one instruction, `false` in the baseline copy; a loop that has a faster exact form
//! with fused operations (`sample_site`'s UNORM8 decode) passes it on as a const
//! generic and picks its form by it.
//!
//! This module holds the crate's one `unsafe` outside `exec::jit::call`: calling a
//! function compiled for a target feature, which is sound only when the processor has
//! the feature — checked just before the call.

/// Defines a function whose body is compiled for the x86-64 baseline and again for AVX2,
/// the AVX2 copy running when the processor has AVX2 (see the module doc). The body
/// should call `#[inline(always)]` functions for its work, so that they are compiled into
/// each copy (a call to a function that is not inlined runs that function's baseline
/// code). The parameters are passed to whichever copy runs. The body may read the
/// constant `FMA` (see the module doc). Generic parameters go in square brackets (a macro
/// cannot match `<…>`):
///
/// ```text
/// wide_fn! {
///     /// Docs.
///     fn name[const N: usize](a: &[u32; N], out: &mut [u32; N]) { kernel(a, out) }
/// }
/// ```
macro_rules! wide_fn {
    (
        $(#[$meta:meta])*
        $vis:vis fn $name:ident $([$($gen:tt)*])? ($($arg:ident : $ty:ty),* $(,)?)
            $(-> $ret:ty)? $body:block
    ) => {
        $(#[$meta])*
        #[inline]
        $vis fn $name $(<$($gen)*>)? ($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,fma")]
                fn avx2 $(<$($gen)*>)? ($($arg: $ty),*) $(-> $ret)? {
                    #[allow(dead_code)]
                    const FMA: bool = true;
                    $body
                }
                if std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
                {
                    #[allow(unsafe_code)]
                    // SAFETY: `avx2` is this function's body compiled with AVX2 and FMA
                    // enabled; calling it is sound exactly when the processor has both,
                    // which `is_x86_feature_detected!` has just confirmed. Its
                    // parameters are this function's, passed as they are.
                    return unsafe { avx2($($arg),*) };
                }
            }
            #[allow(dead_code)]
            const FMA: bool = false;
            $body
        }
    };
}

pub(crate) use wide_fn;

#[cfg(test)]
mod tests {
    wide_fn! {
        /// A lane loop of every kind the pixel path uses: float division and
        /// interpolation, conversions, shifts and masks, a select.
        fn kernel[const N: usize](a: &[u32; N], f: &[f32; N], out: &mut [u32; N]) {
            for l in 0..N {
                let t = ((a[l] >> 8) & 0xff) as f32 / 255.0;
                let u = (a[l] & 0xff) as f32 / 255.0;
                let v = t + (u - t) * f[l];
                out[l] = if f[l] > 0.5 { v.to_bits() } else { out[l] ^ a[l] };
            }
        }
    }

    /// The function `wide_fn!` makes gives the bits of its body run directly (the AVX2
    /// copy runs here when the machine has AVX2), for every lane count a wave has.
    #[test]
    fn copies_give_the_same_bits() {
        fn check<const N: usize>(seed: u32) {
            let mut x = seed;
            let mut next = || {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x
            };
            let a: [u32; N] = std::array::from_fn(|_| next());
            let f: [f32; N] = std::array::from_fn(|_| (next() & 0xff) as f32 / 256.0);
            let mut got = [7u32; N];
            let mut want = [7u32; N];
            kernel(&a, &f, &mut got);
            for l in 0..N {
                let t = ((a[l] >> 8) & 0xff) as f32 / 255.0;
                let u = (a[l] & 0xff) as f32 / 255.0;
                let v = t + (u - t) * f[l];
                want[l] = if f[l] > 0.5 {
                    v.to_bits()
                } else {
                    want[l] ^ a[l]
                };
            }
            assert_eq!(got, want);
        }
        for seed in 1..500 {
            check::<4>(seed);
            check::<8>(seed);
            check::<32>(seed);
            check::<128>(seed);
        }
    }
}
