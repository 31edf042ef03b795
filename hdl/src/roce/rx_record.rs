//! Packing the receive record into the two 512-bit words of `rnic_spec::wire::rx::RECORD_WORD0`
//! and `RECORD_WORD1`, for the receive buffer.
//!
//! The field lists below must equal the spec's (a test checks).

use rust_hdl::prelude::*;

crate::pack_word! {
    /// Record word 0: transport headers and lengths.
    lsb_first RecordWord0: 512 {
        opcode: 8, bth_flags: 8, pkey: 16, fecn: 1, becn: 1, ack_req: 1, dest_qp: 24, psn: 24,
        payload_len: 13, va: 64, rkey: 32, dma_len: 32, imm: 32, ieth_rkey: 32, aeth_syndrome: 8,
        aeth_msn: 24, qkey: 32, src_qp: 24, ipv6: 1, vlan: 1, vlan_tci: 16, dscp: 6, ecn: 2,
        udp_src_port: 16,
    }
}

crate::pack_word! {
    /// Record word 1: atomic operands and addresses.
    lsb_first RecordWord1: 512 {
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
