//! Packing fields into one word: pure wiring, but rust-hdl has neither concatenation nor
//! lint-clean widening, so [`pack_word!`] declares leaf blocks that give their Verilog as one
//! concatenation (and do the same in `update` for rust-hdl's own simulator).

/// Declares a leaf block with one input per field and an output `word` of the given width
/// holding the fields side by side; the bits left over are zero.
///
/// `lsb_first`: the first field sits at bit 0 (records laid out by the spec).
/// `msb_first`: the first field sits at the top of `word` (big-endian headers, written in wire
/// order; the zero fill is at the bottom, so a shorter header is left-aligned).
///
/// The caller must `use rust_hdl::prelude::*` (the derive expects its names in scope). A leaf's
/// input computed in the same `update` that reads its output makes Verilator see a false
/// combinational loop (UNOPTFLAT): feed leaves from registers or ports where possible.
#[macro_export]
macro_rules! pack_word {
    ($(#[$meta:meta])* $order:ident $name:ident : $width:literal { $($field:ident : $bits:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(LogicBlock, Default)]
        pub struct $name {
            $(pub $field: Signal<In, Bits<$bits>>,)*
            pub word: Signal<Out, Bits<$width>>,
        }

        impl $name {
            /// `(field, bits)` in the order given.
            pub const FIELDS: &'static [(&'static str, usize)] = &[$((stringify!($field), $bits)),*];
            const MSB_FIRST: bool = $crate::pack_word!(@msb $order);
            const USED: usize = 0 $(+ $bits)*;
            const _FITS: () = assert!(Self::USED <= $width, "fields wider than the word");
        }

        impl Logic for $name {
            fn update(&mut self) {
                let mut word: Bits<$width> = Default::default();
                let mut at = if Self::MSB_FIRST { $width } else { 0 };
                $(
                    if Self::MSB_FIRST {
                        at -= $bits;
                        word.set_bits::<$bits>(at, self.$field.val());
                    } else {
                        word.set_bits::<$bits>(at, self.$field.val());
                        at += $bits;
                    }
                )*
                let _ = at;
                self.word.next = word;
            }

            fn connect(&mut self) {
                self.word.connect();
            }

            fn hdl(&self) -> Verilog {
                let mut parts: Vec<String> = Self::FIELDS.iter().map(|f| f.0.to_string()).collect();
                if !Self::MSB_FIRST {
                    parts.reverse();
                }
                if Self::USED < $width {
                    let fill = format!("{}'b0", $width - Self::USED);
                    if Self::MSB_FIRST { parts.push(fill) } else { parts.insert(0, fill) }
                }
                Verilog::Custom(format!("always @(*) word = {{{}}};", parts.join(", ")))
            }
        }
    };
    (@msb msb_first) => { true };
    (@msb lsb_first) => { false };
}

/// Bit offset (plus `plus`) of field `name` in a word packed lsb first from `fields` (a
/// [`pack_word!`] block's `FIELDS`), as a constant for `get_bits` offsets.
pub fn field_at<const N: usize>(fields: &[(&str, usize)], name: &str, plus: u64) -> rust_hdl::prelude::Constant<rust_hdl::prelude::Bits<N>> {
    let i = fields.iter().position(|f| f.0 == name).unwrap_or_else(|| panic!("field {name}"));
    crate::stream::c::<N>(fields[..i].iter().map(|f| f.1 as u64).sum::<u64>() + plus)
}

use rust_hdl::prelude::*;

crate::pack_word! {
    /// A count of packets (PSNs) widened to 64 bits, to become a byte offset by a shift of the
    /// path MTU: a READ's responses placed so far, or passed over when it is asked for again.
    lsb_first PsnCount64: 64 { n: 24 }
}
