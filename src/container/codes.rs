//! Numeric codes with names: the enumerations the parts store as integers
//! (`D3D_NAME`, `D3D_REGISTER_COMPONENT_TYPE`, DXIL semantic kinds, …).
//!
//! Owns the `code_enum!` macro: each enumeration keeps unknown values
//! (`Unknown(n)`) instead of refusing them, prints its name, and serialises as the name
//! (or the number when unknown). Also owns [`flag_names`], which names the set bits of a
//! flags word. Does not own the tables themselves; they sit next to the part that uses
//! them, each with its source.

/// Declares an enumeration of numeric codes: variants with their value and printed
/// name, plus `Unknown(value)` for anything else. Generates `from_code`, `code`,
/// `name`, `Display` (the name, or `unknown(N)`) and `Serialize` (the same text).
macro_rules! code_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident : $repr:ty {
            $( $variant:ident = $value:literal => $text:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $(
                #[doc = concat!("`", $text, "` (", stringify!($value), ").")]
                $variant,
            )*
            /// Any other value, kept as stored.
            Unknown($repr),
        }

        impl $name {
            /// The variant for a stored value.
            pub fn from_code(value: $repr) -> Self {
                match value {
                    $( $value => $name::$variant, )*
                    other => $name::Unknown(other),
                }
            }

            /// The stored value.
            pub fn code(self) -> $repr {
                match self {
                    $( $name::$variant => $value, )*
                    $name::Unknown(v) => v,
                }
            }

            /// The name, `None` for an unknown value.
            pub fn name(self) -> Option<&'static str> {
                match self {
                    $( $name::$variant => Some($text), )*
                    $name::Unknown(_) => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self.name() {
                    Some(n) => f.pad(n),
                    None => f.pad(&format!("unknown({})", self.code())),
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    };
}

pub(crate) use code_enum;

/// The names of the set bits of `value`: the name from `table` (bit number, name), or
/// `bit N` for a set bit the table leaves unnamed; lowest bit first.
pub fn flag_names(value: u64, table: &[(u32, &'static str)]) -> Vec<String> {
    (0..64u32)
        .filter(|&bit| (value >> bit) & 1 == 1)
        .map(|bit| match table.iter().find(|(b, _)| *b == bit) {
            Some((_, name)) => (*name).to_string(),
            None => format!("bit {bit}"),
        })
        .collect()
}

/// A component mask as fxc's signature tables print it: four columns, the letter of each
/// set component (`xyzw`) in its own column and a space for each absent one (`  zw`).
pub fn mask_letters(mask: u8) -> String {
    "xyzw"
        .chars()
        .enumerate()
        .map(|(i, c)| if (mask >> i) & 1 == 1 { c } else { ' ' })
        .collect()
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::type_complexity
)]
mod tests {
    use super::*;

    code_enum! {
        /// A test enumeration.
        pub enum Fruit: u32 {
            Apple = 1 => "apple",
            Pear = 7 => "pear",
        }
    }

    #[test]
    fn codes_round_trip_and_keep_unknowns() {
        assert_eq!(Fruit::from_code(7), Fruit::Pear);
        assert_eq!(Fruit::from_code(9), Fruit::Unknown(9));
        assert_eq!(Fruit::Unknown(9).code(), 9);
        assert_eq!(Fruit::Apple.to_string(), "apple");
        assert_eq!(Fruit::Unknown(9).to_string(), "unknown(9)");
        assert_eq!(serde_json::to_string(&Fruit::Pear).unwrap(), "\"pear\"");
    }

    #[test]
    fn flags_and_masks() {
        assert_eq!(flag_names(0b1001, &[(0, "a")]), ["a", "bit 3"]);
        assert_eq!(mask_letters(0b1011), "xy w");
        assert_eq!(mask_letters(0b1100), "  zw");
        assert_eq!(mask_letters(0), "    ");
    }
}
