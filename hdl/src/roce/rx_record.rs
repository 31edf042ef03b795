//! Packing the receive record into the two 512-bit words of `rnic_spec::wire::rx::RECORD_WORD0`
//! and `RECORD_WORD1`, for the receive buffer.
//!
//! Packing is pure wiring, but rust-hdl has neither concatenation nor lint-clean widening, so
//! these leaf blocks give their Verilog as one concatenation, and `update` does the same for
//! rust-hdl's simulator. The field lists below must equal the spec's (a test checks).

use rust_hdl::prelude::*;

macro_rules! record_word {
    ($(#[$meta:meta])* $name:ident { $($field:ident : $bits:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(LogicBlock, Default)]
        pub struct $name {
            $(pub $field: Signal<In, Bits<$bits>>,)*
            pub word: Signal<Out, Bits<512>>,
        }

        impl $name {
            /// `(field, bits)` from bit 0 upward.
            pub const FIELDS: &'static [(&'static str, usize)] = &[$((stringify!($field), $bits)),*];
        }

        impl Logic for $name {
            fn update(&mut self) {
                let mut word: Bits<512> = Bits::default();
                let mut at = 0;
                $(
                    word.set_bits::<$bits>(at, self.$field.val());
                    at += $bits;
                )*
                debug_assert!(at <= 512);
                self.word.next = word;
            }

            fn connect(&mut self) {
                self.word.connect();
            }

            fn hdl(&self) -> Verilog {
                let used: usize = Self::FIELDS.iter().map(|f| f.1).sum();
                let mut parts: Vec<String> = Self::FIELDS.iter().rev().map(|f| f.0.to_string()).collect();
                if used < 512 {
                    parts.insert(0, format!("{}'b0", 512 - used));
                }
                Verilog::Custom(format!("always @(*) word = {{{}}};", parts.join(", ")))
            }
        }
    };
}

record_word! {
    /// Record word 0: transport headers and lengths.
    RecordWord0 {
        opcode: 8, bth_flags: 8, pkey: 16, fecn: 1, becn: 1, ack_req: 1, dest_qp: 24, psn: 24,
        payload_len: 13, va: 64, rkey: 32, dma_len: 32, imm: 32, ieth_rkey: 32, aeth_syndrome: 8,
        aeth_msn: 24, qkey: 32, src_qp: 24, ipv6: 1, vlan: 1, vlan_tci: 16, dscp: 6, ecn: 2,
        udp_src_port: 16,
    }
}

record_word! {
    /// Record word 1: atomic operands and addresses.
    RecordWord1 {
        swap_add: 64, compare: 64, atomic_ack: 64, ip_src: 128, ip_dst: 128, eth_src: 48, ttl: 8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_match_the_spec() {
        assert_eq!(RecordWord0::FIELDS, rnic_spec::wire::rx::RECORD_WORD0);
        assert_eq!(RecordWord1::FIELDS, rnic_spec::wire::rx::RECORD_WORD1);
    }
}
