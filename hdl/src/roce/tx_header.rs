//! Transmit header builder: one packet descriptor in, the packet's headers out as two beats
//! (Ethernet, optional 802.1Q, IPv4 or IPv6, UDP, BTH and the extended headers its opcode
//! takes: RETH, ImmDt, AETH, AtomicETH, AtomicAckETH), with every length, the pad count and the IPv4 checksum filled in,
//! and the frame's layout for the assembler and the CRC blocks.
//!
//! Each header is packed big-endian in wire order by a [`pack_word!`] leaf; the variable
//! layouts are joined by choices between fixed packings (VLAN or not, IPv4 or IPv6; RETH,
//! AtomicETH, AETH + AtomicAckETH or a single 4-byte header), so no stage shifts by a run-time amount. The joined 128-byte
//! word is byte-reversed into `tdata` order.
//!
//! Three stages with one advance signal (`out_ready` or an empty output): R registers the
//! descriptor and decodes the opcode, L computes the lengths and the IPv4 checksum's fixed
//! part, H finishes the checksum and packs.

use crate::pack_word;
use crate::stream::{c, numbers, ByteReverse, BEAT_BYTES};
use rnic_spec::wire::eth::{ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERTYPE_VLAN, ETH_LEN, ETH_VLAN_LEN};
use rnic_spec::wire::ib::{ATOMIC_ACK_ETH_LEN, ATOMIC_ETH_LEN, BTH_LEN, ICRC_LEN, IMMDT_LEN, RETH_LEN};
use rnic_spec::wire::ip::{IPV4_LEN, IPV6_LEN, PROTO_UDP};
use rnic_spec::wire::tx::{tx_ext, tx_opcodes, IPV4_FLAGS_DF};
use rnic_spec::wire::udp::UDP_LEN;
use rnic_spec::wire::{MIN_FRAME_NO_FCS, ROCE_UDP_PORT};
use rust_hdl::prelude::*;

/// Bits of the payload length of one packet (up to the 4096-byte path MTU, with room).
pub const LEN_BITS: usize = 13;
/// Ethernet FCS bytes.
pub const FCS_LEN: usize = 4;

const N_TX_OPS: usize = 21;

pack_word! { msb_first EthPlain: 112 { dst: 48, src: 48, ethertype: 16 } }
pack_word! { msb_first EthVlan: 144 { dst: 48, src: 48, tpid: 16, tci: 16, ethertype: 16 } }
pack_word! {
    msb_first Ipv4Pack: 160 {
        version_ihl: 8, dscp: 6, ecn: 2, total_len: 16, id: 16, flags_frag: 16, ttl: 8, protocol: 8,
        checksum: 16, src: 32, dst: 32,
    }
}
pack_word! {
    msb_first Ipv6Pack: 320 {
        version: 4, dscp: 6, ecn: 2, flow_label: 20, payload_len: 16, next_header: 8, hop_limit: 8,
        src: 128, dst: 128,
    }
}
pack_word! { msb_first RethImm: 224 { va: 64, rkey: 32, dma_len: 32, imm: 32 } }
pack_word! { msb_first Ext4: 224 { hdr: 32 } }
pack_word! { msb_first AtomicPack: 224 { va: 64, rkey: 32, value: 64, compare: 64 } }
pack_word! { msb_first AethAtomicAck: 224 { aeth: 32, value: 64 } }
pack_word! { msb_first Aeth: 32 { syndrome: 8, msn: 24 } }
pack_word! {
    /// UDP, BTH and up to 28 bytes of extended headers.
    msb_first Transport: 384 {
        src_port: 16, dst_port: 16, length: 16, checksum: 16, opcode: 8, se: 1, mig: 1, pad: 2,
        tver: 4, pkey: 16, fecn: 1, becn: 1, resv6: 6, dest_qp: 24, ack_req: 1, resv7: 7, psn: 24,
        ext: 224,
    }
}
pack_word! { msb_first L3v4: 704 { ip: 160, transport: 384 } }
pack_word! { msb_first L3v6: 704 { ip: 320, transport: 384 } }
pack_word! { msb_first HdrPlain: 1024 { eth: 112, l3: 704 } }
pack_word! { msb_first HdrVlan: 1024 { eth: 144, l3: 704 } }
// Widening for the length and checksum sums (rust-hdl cannot widen without lint warnings).
pack_word! { lsb_first Widen16: 20 { x: 16 } }
pack_word! { lsb_first LenWord: 16 { len: 13 } }
pack_word! { lsb_first TosWord: 20 { ecn: 2, dscp: 6 } }
pack_word! { lsb_first TtlWord: 20 { protocol: 8, ttl: 8 } }

crate::hdl_block! {
    pub struct TxHeader {
        pub clock: Signal<In, Clock>,
        pub in_valid: Signal<In, Bit>,
        pub in_ready: Signal<Out, Bit>,
        pub in_eth_dst: Signal<In, Bits<48>>,
        pub in_eth_src: Signal<In, Bits<48>>,
        pub in_vlan: Signal<In, Bit>,
        /// 802.1Q tag control: PCP (3), DEI (1), VID (12).
        pub in_vlan_tci: Signal<In, Bits<16>>,
        pub in_ipv6: Signal<In, Bit>,
        /// IPv4 addresses in the low 32 bits.
        pub in_ip_src: Signal<In, Bits<128>>,
        pub in_ip_dst: Signal<In, Bits<128>>,
        pub in_dscp: Signal<In, Bits<6>>,
        pub in_ecn: Signal<In, Bits<2>>,
        /// IPv4 TTL / IPv6 hop limit.
        pub in_ttl: Signal<In, Bits<8>>,
        pub in_flow_label: Signal<In, Bits<20>>,
        pub in_udp_src_port: Signal<In, Bits<16>>,
        pub in_opcode: Signal<In, Bits<8>>,
        pub in_se: Signal<In, Bit>,
        pub in_pkey: Signal<In, Bits<16>>,
        pub in_dest_qp: Signal<In, Bits<24>>,
        pub in_ack_req: Signal<In, Bit>,
        pub in_psn: Signal<In, Bits<24>>,
        pub in_va: Signal<In, Bits<64>>,
        pub in_rkey: Signal<In, Bits<32>>,
        pub in_dma_len: Signal<In, Bits<32>>,
        pub in_imm: Signal<In, Bits<32>>,
        pub in_aeth_syndrome: Signal<In, Bits<8>>,
        pub in_aeth_msn: Signal<In, Bits<24>>,
        /// AtomicETH's swap / add operand, or AtomicAckETH's original value.
        pub in_atomic_value: Signal<In, Bits<64>>,
        /// AtomicETH's compare operand.
        pub in_atomic_compare: Signal<In, Bits<64>>,
        pub in_payload_len: Signal<In, Bits<LEN_BITS>>,
        /// The MAC appends an FCS (soft MAC); otherwise the frame ends after the ICRC.
        pub fcs_enable: Signal<In, Bit>,

        pub out_valid: Signal<Out, Bit>,
        pub out_ready: Signal<In, Bit>,
        /// Header bytes 0..63 and 64..127 in `tdata` order; bytes past `out_hdr_len` are zero.
        pub out_beat0: Signal<Out, Bits<512>>,
        pub out_beat1: Signal<Out, Bits<512>>,
        /// The headers take both beats (64 bytes or more): the payload starts in beat 1.
        pub out_hdr_long: Signal<Out, Bit>,
        /// Bit offset of the payload's first byte in its beat, 8 * (header length mod 64).
        pub out_pl_shift: Signal<Out, Bits<10>>,
        /// Byte position just past the payload (header length + payload length).
        pub out_pl_end: Signal<Out, Bits<15>>,
        /// Payload beats the packet takes from the payload stream, ceil(payload length / 64).
        pub out_pl_beats: Signal<Out, Bits<8>>,
        /// Byte position of the ICRC.
        pub out_icrc_end: Signal<Out, Bits<15>>,
        /// For the FCS block: bit 15 = append an FCS, bits 14..0 its byte position (after
        /// padding to the minimum frame).
        pub out_fcs_tag: Signal<Out, Bits<16>>,
        /// Bytes on the wire from the destination MAC to the end (FCS included when enabled).
        pub out_frame_len: Signal<Out, Bits<15>>,
        /// 2 * vlan + ipv6, for the ICRC masks.
        pub out_layout: Signal<Out, Bits<2>>,

        eth_plain: EthPlain,
        eth_vlan: EthVlan,
        ipv4: Ipv4Pack,
        ipv6: Ipv6Pack,
        reth_imm: RethImm,
        ext4: Ext4,
        atomic_pack: AtomicPack,
        aeth_atomic_ack: AethAtomicAck,
        aeth: Aeth,
        transport: Transport,
        l3v4: L3v4,
        l3v6: L3v6,
        hdr_plain: HdrPlain,
        hdr_vlan: HdrVlan,
        rev0: ByteReverse,
        rev1: ByteReverse,
        widen: [Widen16; 5],
        len_word: LenWord,
        tos_word: TosWord,
        ttl_word: TtlWord,

        op_code: [Constant<Bits<8>>; N_TX_OPS] = tx_op_table(|code| code as u64),
        op_reth: [Constant<Bits<1>>; N_TX_OPS] = tx_op_table(|code| tx_ext(code).unwrap().reth as u64),
        op_imm: [Constant<Bits<1>>; N_TX_OPS] = tx_op_table(|code| tx_ext(code).unwrap().imm as u64),
        op_aeth: [Constant<Bits<1>>; N_TX_OPS] = tx_op_table(|code| tx_ext(code).unwrap().aeth as u64),
        op_atomic: [Constant<Bits<1>>; N_TX_OPS] = tx_op_table(|code| tx_ext(code).unwrap().atomic as u64),
        op_atomic_ack: [Constant<Bits<1>>; N_TX_OPS] = tx_op_table(|code| tx_ext(code).unwrap().atomic_ack as u64),
        ethertype_v4: Constant<Bits<16>> = c::<16>(ETHERTYPE_IPV4 as u64),
        ethertype_v6: Constant<Bits<16>> = c::<16>(ETHERTYPE_IPV6 as u64),
        tpid: Constant<Bits<16>> = c::<16>(ETHERTYPE_VLAN as u64),
        version_ihl: Constant<Bits<8>> = c::<8>(0x45),
        flags_frag: Constant<Bits<16>> = c::<16>((IPV4_FLAGS_DF as u64) << 13),
        proto_udp: Constant<Bits<8>> = c::<8>(PROTO_UDP as u64),
        version6: Constant<Bits<4>> = c::<4>(6),
        roce_port: Constant<Bits<16>> = c::<16>(ROCE_UDP_PORT as u64),
        zero1: Constant<Bits<1>> = c::<1>(0),
        one1: Constant<Bits<1>> = c::<1>(1),
        zero4: Constant<Bits<4>> = c::<4>(0),
        zero6: Constant<Bits<6>> = c::<6>(0),
        zero7: Constant<Bits<7>> = c::<7>(0),
        zero16: Constant<Bits<16>> = c::<16>(0),
        three16: Constant<Bits<16>> = c::<16>(3),
        zero32: Constant<Bits<32>> = c::<32>(0),
        len_reth: Constant<Bits<16>> = c::<16>(RETH_LEN as u64),
        len_4: Constant<Bits<16>> = c::<16>(IMMDT_LEN as u64),
        len_atomic: Constant<Bits<16>> = c::<16>(ATOMIC_ETH_LEN as u64),
        len_atomic_ack: Constant<Bits<16>> = c::<16>(ATOMIC_ACK_ETH_LEN as u64),
        /// UDP + BTH + ICRC, the fixed part of the UDP length.
        udp_fixed: Constant<Bits<16>> = c::<16>((UDP_LEN + BTH_LEN + ICRC_LEN) as u64),
        ipv4_len: Constant<Bits<16>> = c::<16>(IPV4_LEN as u64),
        l2_ip: [Constant<Bits<16>>; 4] = std::array::from_fn(|layout| {
            let l2 = if layout & 2 != 0 { ETH_VLAN_LEN } else { ETH_LEN };
            c::<16>((l2 + if layout & 1 != 0 { IPV6_LEN } else { IPV4_LEN }) as u64)
        }),
        udp_bth: Constant<Bits<16>> = c::<16>((UDP_LEN + BTH_LEN) as u64),
        icrc_len: Constant<Bits<16>> = c::<16>(ICRC_LEN as u64),
        min_frame: Constant<Bits<16>> = c::<16>(MIN_FRAME_NO_FCS as u64),
        fcs_len: Constant<Bits<16>> = c::<16>(FCS_LEN as u64),
        beat_minus_one: Constant<Bits<16>> = c::<16>(BEAT_BYTES as u64 - 1),
        beat16: Constant<Bits<16>> = c::<16>(BEAT_BYTES as u64),
        fcs_flag: Constant<Bits<16>> = c::<16>(1 << 15),
        low16: Constant<Bits<20>> = c::<20>(0xFFFF),
        csum_fixed: Constant<Bits<20>> = c::<20>(0x4500 + ((IPV4_FLAGS_DF as u64) << 13)),
        layout_id: [Constant<Bits<2>>; 4] = numbers::<2, 4>(),

        // Stage R: the descriptor, decoded.
        r_valid: DFF<Bit>,
        r_eth_dst: DFF<Bits<48>>,
        r_eth_src: DFF<Bits<48>>,
        r_vlan: DFF<Bit>,
        r_vlan_tci: DFF<Bits<16>>,
        r_ipv6: DFF<Bit>,
        r_ip_src: DFF<Bits<128>>,
        r_ip_dst: DFF<Bits<128>>,
        r_dscp: DFF<Bits<6>>,
        r_ecn: DFF<Bits<2>>,
        r_ttl: DFF<Bits<8>>,
        r_flow_label: DFF<Bits<20>>,
        r_udp_src_port: DFF<Bits<16>>,
        r_opcode: DFF<Bits<8>>,
        r_se: DFF<Bit>,
        r_pkey: DFF<Bits<16>>,
        r_dest_qp: DFF<Bits<24>>,
        r_ack_req: DFF<Bit>,
        r_psn: DFF<Bits<24>>,
        r_va: DFF<Bits<64>>,
        r_rkey: DFF<Bits<32>>,
        r_dma_len: DFF<Bits<32>>,
        r_imm: DFF<Bits<32>>,
        r_aeth_syndrome: DFF<Bits<8>>,
        r_aeth_msn: DFF<Bits<24>>,
        r_atomic_value: DFF<Bits<64>>,
        r_atomic_compare: DFF<Bits<64>>,
        r_payload_len: DFF<Bits<LEN_BITS>>,
        r_fcs: DFF<Bit>,
        // Stage L: everything of R plus lengths and the checksum's fixed part.
        l_valid: DFF<Bit>,
        l_eth_dst: DFF<Bits<48>>,
        l_eth_src: DFF<Bits<48>>,
        l_vlan: DFF<Bit>,
        l_vlan_tci: DFF<Bits<16>>,
        l_ipv6: DFF<Bit>,
        l_ip_src: DFF<Bits<128>>,
        l_ip_dst: DFF<Bits<128>>,
        l_dscp: DFF<Bits<6>>,
        l_ecn: DFF<Bits<2>>,
        l_ttl: DFF<Bits<8>>,
        l_flow_label: DFF<Bits<20>>,
        l_udp_src_port: DFF<Bits<16>>,
        l_opcode: DFF<Bits<8>>,
        l_se: DFF<Bit>,
        l_pkey: DFF<Bits<16>>,
        l_dest_qp: DFF<Bits<24>>,
        l_ack_req: DFF<Bit>,
        l_psn: DFF<Bits<24>>,
        l_reth: DFF<Bit>,
        l_atomic: DFF<Bit>,
        l_atomic_ack: DFF<Bit>,
        l_atomic_value: DFF<Bits<64>>,
        l_atomic_compare: DFF<Bits<64>>,
        l_ext_word: DFF<Bits<32>>,
        l_va: DFF<Bits<64>>,
        l_rkey: DFF<Bits<32>>,
        l_dma_len: DFF<Bits<32>>,
        l_imm: DFF<Bits<32>>,
        l_pl_end: DFF<Bits<16>>,
        l_pl_beats: DFF<Bits<16>>,
        l_pad: DFF<Bits<2>>,
        l_fcs: DFF<Bit>,
        l_layout: DFF<Bits<2>>,
        l_udp_len: DFF<Bits<16>>,
        l_hdr_len: DFF<Bits<16>>,
        l_frame_len: DFF<Bits<16>>,
        l_csum_part: DFF<Bits<20>>,
        // Stage H: the output.
        h_valid: DFF<Bit>,
        h_beat0: DFF<Bits<512>>,
        h_beat1: DFF<Bits<512>>,
        h_hdr_long: DFF<Bit>,
        h_pl_shift: DFF<Bits<10>>,
        h_pl_end: DFF<Bits<15>>,
        h_pl_beats: DFF<Bits<8>>,
        h_icrc_end: DFF<Bits<15>>,
        h_fcs_tag: DFF<Bits<16>>,
        h_frame_len: DFF<Bits<15>>,
        h_layout: DFF<Bits<2>>,

        advance: Signal<Local, Bit>,
        has_reth: Signal<Local, Bit>,
        has_imm: Signal<Local, Bit>,
        has_aeth: Signal<Local, Bit>,
        has_atomic: Signal<Local, Bit>,
        has_atomic_ack: Signal<Local, Bit>,
        ext_len: Signal<Local, Bits<16>>,
        pad: Signal<Local, Bits<16>>,
        ext_word: Signal<Local, Bits<32>>,
        csum_part: Signal<Local, Bits<20>>,
        layout: Signal<Local, Bits<2>>,
        udp_len: Signal<Local, Bits<16>>,
        hdr_len: Signal<Local, Bits<16>>,
        base_len: Signal<Local, Bits<16>>,
        ip_total: Signal<Local, Bits<16>>,
        sum: Signal<Local, Bits<20>>,
        fold: Signal<Local, Bits<20>>,
        fold2: Signal<Local, Bits<20>>,
        padded: Signal<Local, Bits<16>>,
        with_fcs: Signal<Local, Bits<16>>,
        icrc_at: Signal<Local, Bits<16>>,
        pl_shift: Signal<Local, Bits<16>>,
        hdr: Signal<Local, Bits<1024>>,
        l3: Signal<Local, Bits<704>>,
    }
}

fn tx_op_table<const N: usize>(f: impl Fn(u8) -> u64) -> [Constant<Bits<N>>; N_TX_OPS] {
    let codes = tx_opcodes();
    assert_eq!(codes.len(), N_TX_OPS, "transmit opcode count changed: update N_TX_OPS");
    std::array::from_fn(|i| c::<N>(f(codes[i])))
}

impl Logic for TxHeader {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, r_valid, r_eth_dst, r_eth_src, r_vlan, r_vlan_tci, r_ipv6, r_ip_src, r_ip_dst, r_dscp,
            r_ecn, r_ttl, r_flow_label, r_udp_src_port, r_opcode, r_se, r_pkey, r_dest_qp, r_ack_req, r_psn, r_va,
            r_rkey, r_dma_len, r_imm, r_aeth_syndrome, r_aeth_msn, r_atomic_value, r_atomic_compare, r_payload_len, r_fcs, l_valid, l_eth_dst,
            l_eth_src, l_vlan, l_vlan_tci, l_ipv6, l_ip_src, l_ip_dst, l_dscp, l_ecn, l_ttl, l_flow_label,
            l_udp_src_port, l_opcode, l_se, l_pkey, l_dest_qp, l_ack_req, l_psn, l_reth, l_atomic, l_atomic_ack, l_atomic_value, l_atomic_compare, l_ext_word, l_va, l_rkey,
            l_dma_len, l_imm, l_pl_end, l_pl_beats, l_pad, l_fcs, l_layout, l_udp_len, l_hdr_len, l_frame_len,
            l_csum_part, h_valid, h_beat0, h_beat1, h_hdr_long, h_pl_shift, h_pl_end, h_pl_beats, h_icrc_end, h_fcs_tag,
            h_frame_len, h_layout
        );
        // One advance for the three stages: the output is empty or taken.
        self.advance.next = !self.h_valid.q.val() | self.out_ready.val();
        self.in_ready.next = self.advance.val();

        // Stage R.
        if self.advance.val() {
            self.r_valid.d.next = self.in_valid.val();
            self.r_eth_dst.d.next = self.in_eth_dst.val();
            self.r_eth_src.d.next = self.in_eth_src.val();
            self.r_vlan.d.next = self.in_vlan.val();
            self.r_vlan_tci.d.next = self.in_vlan_tci.val();
            self.r_ipv6.d.next = self.in_ipv6.val();
            self.r_ip_src.d.next = self.in_ip_src.val();
            self.r_ip_dst.d.next = self.in_ip_dst.val();
            self.r_dscp.d.next = self.in_dscp.val();
            self.r_ecn.d.next = self.in_ecn.val();
            self.r_ttl.d.next = self.in_ttl.val();
            self.r_flow_label.d.next = self.in_flow_label.val();
            self.r_udp_src_port.d.next = self.in_udp_src_port.val();
            self.r_opcode.d.next = self.in_opcode.val();
            self.r_se.d.next = self.in_se.val();
            self.r_pkey.d.next = self.in_pkey.val();
            self.r_dest_qp.d.next = self.in_dest_qp.val();
            self.r_ack_req.d.next = self.in_ack_req.val();
            self.r_psn.d.next = self.in_psn.val();
            self.r_va.d.next = self.in_va.val();
            self.r_rkey.d.next = self.in_rkey.val();
            self.r_dma_len.d.next = self.in_dma_len.val();
            self.r_imm.d.next = self.in_imm.val();
            self.r_aeth_syndrome.d.next = self.in_aeth_syndrome.val();
            self.r_aeth_msn.d.next = self.in_aeth_msn.val();
            self.r_atomic_value.d.next = self.in_atomic_value.val();
            self.r_atomic_compare.d.next = self.in_atomic_compare.val();
            self.r_payload_len.d.next = self.in_payload_len.val();
            self.r_fcs.d.next = self.fcs_enable.val();
        }

        // Stage L: the opcode's extended headers, lengths, the checksum without the length.
        self.has_reth.next = false;
        self.has_imm.next = false;
        self.has_aeth.next = false;
        self.has_atomic.next = false;
        self.has_atomic_ack.next = false;
        for i in 0..21 {
            if self.r_opcode.q.val() == self.op_code[i].val() {
                self.has_reth.next = self.op_reth[i].val().any();
                self.has_imm.next = self.op_imm[i].val().any();
                self.has_aeth.next = self.op_aeth[i].val().any();
                self.has_atomic.next = self.op_atomic[i].val().any();
                self.has_atomic_ack.next = self.op_atomic_ack[i].val().any();
            }
        }
        self.ext_len.next = self.zero16.val();
        if self.has_reth.val() {
            self.ext_len.next = self.len_reth.val();
        }
        if self.has_imm.val() | self.has_aeth.val() {
            self.ext_len.next = self.ext_len.val() + self.len_4.val();
        }
        if self.has_atomic.val() {
            self.ext_len.next = self.len_atomic.val();
        }
        if self.has_atomic_ack.val() {
            self.ext_len.next = self.len_4.val() + self.len_atomic_ack.val();
        }
        self.aeth.syndrome.next = self.r_aeth_syndrome.q.val();
        self.aeth.msn.next = self.r_aeth_msn.q.val();
        self.ext_word.next = self.zero32.val();
        if self.has_imm.val() {
            self.ext_word.next = self.r_imm.q.val();
        }
        if self.has_aeth.val() {
            self.ext_word.next = self.aeth.word.val();
        }
        self.layout.next = self.layout_id[0].val();
        if self.r_ipv6.q.val() {
            self.layout.next = self.layout_id[1].val();
        }
        if self.r_vlan.q.val() {
            self.layout.next = self.layout.val() | self.layout_id[2].val();
        }
        self.base_len.next = self.l2_ip[0].val();
        for k in 1..4 {
            if self.layout.val() == self.layout_id[k].val() {
                self.base_len.next = self.l2_ip[k].val();
            }
        }
        self.len_word.len.next = self.r_payload_len.q.val();
        self.hdr_len.next = self.base_len.val() + self.udp_bth.val() + self.ext_len.val();
        self.pad.next = (self.zero16.val() - self.len_word.word.val()) & self.three16.val();
        self.udp_len.next = self.udp_fixed.val() + self.ext_len.val() + self.len_word.word.val() + self.pad.val();
        // IPv4 checksum over everything but the total length: 0x45|tos, flags, TTL|protocol,
        // the addresses (RFC 1071 sum; the end-around carries are folded in stage H).
        self.widen[0].x.next = self.r_ip_src.q.val().get_bits::<16>(0);
        self.widen[1].x.next = self.r_ip_src.q.val().get_bits::<16>(16);
        self.widen[2].x.next = self.r_ip_dst.q.val().get_bits::<16>(0);
        self.widen[3].x.next = self.r_ip_dst.q.val().get_bits::<16>(16);
        self.tos_word.ecn.next = self.r_ecn.q.val();
        self.tos_word.dscp.next = self.r_dscp.q.val();
        self.ttl_word.protocol.next = self.proto_udp.val();
        self.ttl_word.ttl.next = self.r_ttl.q.val();
        self.csum_part.next = self.csum_fixed.val()
            + self.widen[0].word.val()
            + self.widen[1].word.val()
            + self.widen[2].word.val()
            + self.widen[3].word.val()
            + self.tos_word.word.val()
            + self.ttl_word.word.val();
        if self.advance.val() {
            self.l_valid.d.next = self.r_valid.q.val();
            self.l_eth_dst.d.next = self.r_eth_dst.q.val();
            self.l_eth_src.d.next = self.r_eth_src.q.val();
            self.l_vlan.d.next = self.r_vlan.q.val();
            self.l_vlan_tci.d.next = self.r_vlan_tci.q.val();
            self.l_ipv6.d.next = self.r_ipv6.q.val();
            self.l_ip_src.d.next = self.r_ip_src.q.val();
            self.l_ip_dst.d.next = self.r_ip_dst.q.val();
            self.l_dscp.d.next = self.r_dscp.q.val();
            self.l_ecn.d.next = self.r_ecn.q.val();
            self.l_ttl.d.next = self.r_ttl.q.val();
            self.l_flow_label.d.next = self.r_flow_label.q.val();
            self.l_udp_src_port.d.next = self.r_udp_src_port.q.val();
            self.l_opcode.d.next = self.r_opcode.q.val();
            self.l_se.d.next = self.r_se.q.val();
            self.l_pkey.d.next = self.r_pkey.q.val();
            self.l_dest_qp.d.next = self.r_dest_qp.q.val();
            self.l_ack_req.d.next = self.r_ack_req.q.val();
            self.l_psn.d.next = self.r_psn.q.val();
            self.l_reth.d.next = self.has_reth.val();
            self.l_atomic.d.next = self.has_atomic.val();
            self.l_atomic_ack.d.next = self.has_atomic_ack.val();
            self.l_atomic_value.d.next = self.r_atomic_value.q.val();
            self.l_atomic_compare.d.next = self.r_atomic_compare.q.val();
            self.l_va.d.next = self.r_va.q.val();
            self.l_rkey.d.next = self.r_rkey.q.val();
            self.l_dma_len.d.next = self.r_dma_len.q.val();
            self.l_imm.d.next = self.zero32.val();
            if self.has_imm.val() {
                self.l_imm.d.next = self.r_imm.q.val();
            }
            self.l_pl_end.d.next = self.hdr_len.val() + self.len_word.word.val();
            self.l_pl_beats.d.next = (self.len_word.word.val() + self.beat_minus_one.val()) >> 6;
            self.l_pad.d.next = self.pad.val().get_bits::<2>(0);
            self.l_ext_word.d.next = self.ext_word.val();
            self.l_csum_part.d.next = self.csum_part.val();
            self.l_fcs.d.next = self.r_fcs.q.val();
            self.l_layout.d.next = self.layout.val();
            self.l_udp_len.d.next = self.udp_len.val();
            self.l_hdr_len.d.next = self.hdr_len.val();
            self.l_frame_len.d.next = self.base_len.val() + self.udp_len.val();
        }

        // Stage H: finish the checksum, pack, place the CRCs.
        self.ip_total.next = self.l_udp_len.q.val() + self.ipv4_len.val();
        self.widen[4].x.next = self.ip_total.val();
        self.sum.next = self.l_csum_part.q.val() + self.widen[4].word.val();
        self.fold.next = (self.sum.val() & self.low16.val()) + (self.sum.val() >> 16);
        self.fold2.next = (self.fold.val() & self.low16.val()) + (self.fold.val() >> 16);

        self.eth_plain.dst.next = self.l_eth_dst.q.val();
        self.eth_plain.src.next = self.l_eth_src.q.val();
        self.eth_plain.ethertype.next = self.ethertype_v4.val();
        if self.l_ipv6.q.val() {
            self.eth_plain.ethertype.next = self.ethertype_v6.val();
        }
        self.eth_vlan.dst.next = self.l_eth_dst.q.val();
        self.eth_vlan.src.next = self.l_eth_src.q.val();
        self.eth_vlan.tpid.next = self.tpid.val();
        self.eth_vlan.tci.next = self.l_vlan_tci.q.val();
        self.eth_vlan.ethertype.next = self.eth_plain.ethertype.val();
        self.ipv4.version_ihl.next = self.version_ihl.val();
        self.ipv4.dscp.next = self.l_dscp.q.val();
        self.ipv4.ecn.next = self.l_ecn.q.val();
        self.ipv4.total_len.next = self.ip_total.val();
        self.ipv4.id.next = self.zero16.val();
        self.ipv4.flags_frag.next = self.flags_frag.val();
        self.ipv4.ttl.next = self.l_ttl.q.val();
        self.ipv4.protocol.next = self.proto_udp.val();
        self.ipv4.checksum.next = !self.fold2.val().get_bits::<16>(0);
        self.ipv4.src.next = self.l_ip_src.q.val().get_bits::<32>(0);
        self.ipv4.dst.next = self.l_ip_dst.q.val().get_bits::<32>(0);
        self.ipv6.version.next = self.version6.val();
        self.ipv6.dscp.next = self.l_dscp.q.val();
        self.ipv6.ecn.next = self.l_ecn.q.val();
        self.ipv6.flow_label.next = self.l_flow_label.q.val();
        self.ipv6.payload_len.next = self.l_udp_len.q.val();
        self.ipv6.next_header.next = self.proto_udp.val();
        self.ipv6.hop_limit.next = self.l_ttl.q.val();
        self.ipv6.src.next = self.l_ip_src.q.val();
        self.ipv6.dst.next = self.l_ip_dst.q.val();
        self.reth_imm.va.next = self.l_va.q.val();
        self.reth_imm.rkey.next = self.l_rkey.q.val();
        self.reth_imm.dma_len.next = self.l_dma_len.q.val();
        self.reth_imm.imm.next = self.l_imm.q.val();
        self.ext4.hdr.next = self.l_ext_word.q.val();
        self.atomic_pack.va.next = self.l_va.q.val();
        self.atomic_pack.rkey.next = self.l_rkey.q.val();
        self.atomic_pack.value.next = self.l_atomic_value.q.val();
        self.atomic_pack.compare.next = self.l_atomic_compare.q.val();
        self.aeth_atomic_ack.aeth.next = self.l_ext_word.q.val();
        self.aeth_atomic_ack.value.next = self.l_atomic_value.q.val();
        self.transport.src_port.next = self.l_udp_src_port.q.val();
        self.transport.dst_port.next = self.roce_port.val();
        self.transport.length.next = self.l_udp_len.q.val();
        self.transport.checksum.next = self.zero16.val();
        self.transport.opcode.next = self.l_opcode.q.val();
        self.transport.se.next = self.zero1.val();
        if self.l_se.q.val() {
            self.transport.se.next = self.one1.val();
        }
        self.transport.mig.next = self.zero1.val();
        self.transport.pad.next = self.l_pad.q.val();
        self.transport.tver.next = self.zero4.val();
        self.transport.pkey.next = self.l_pkey.q.val();
        self.transport.fecn.next = self.zero1.val();
        self.transport.becn.next = self.zero1.val();
        self.transport.resv6.next = self.zero6.val();
        self.transport.dest_qp.next = self.l_dest_qp.q.val();
        self.transport.ack_req.next = self.zero1.val();
        if self.l_ack_req.q.val() {
            self.transport.ack_req.next = self.one1.val();
        }
        self.transport.resv7.next = self.zero7.val();
        self.transport.psn.next = self.l_psn.q.val();
        self.transport.ext.next = self.ext4.word.val();
        if self.l_reth.q.val() {
            self.transport.ext.next = self.reth_imm.word.val();
        }
        if self.l_atomic.q.val() {
            self.transport.ext.next = self.atomic_pack.word.val();
        }
        if self.l_atomic_ack.q.val() {
            self.transport.ext.next = self.aeth_atomic_ack.word.val();
        }
        self.l3v4.ip.next = self.ipv4.word.val();
        self.l3v4.transport.next = self.transport.word.val();
        self.l3v6.ip.next = self.ipv6.word.val();
        self.l3v6.transport.next = self.transport.word.val();
        self.l3.next = self.l3v4.word.val();
        if self.l_ipv6.q.val() {
            self.l3.next = self.l3v6.word.val();
        }
        self.hdr_plain.eth.next = self.eth_plain.word.val();
        self.hdr_plain.l3.next = self.l3.val();
        self.hdr_vlan.eth.next = self.eth_vlan.word.val();
        self.hdr_vlan.l3.next = self.l3.val();
        self.hdr.next = self.hdr_plain.word.val();
        if self.l_vlan.q.val() {
            self.hdr.next = self.hdr_vlan.word.val();
        }
        self.rev0.a.next = self.hdr.val().get_bits::<512>(512);
        self.rev1.a.next = self.hdr.val().get_bits::<512>(0);
        self.padded.next = self.l_frame_len.q.val();
        if self.l_frame_len.q.val() < self.min_frame.val() {
            self.padded.next = self.min_frame.val();
        }
        self.with_fcs.next = self.padded.val() + self.fcs_len.val();
        self.icrc_at.next = self.l_frame_len.q.val() - self.icrc_len.val();
        self.pl_shift.next = (self.l_hdr_len.q.val() & self.beat_minus_one.val()) << 3;
        if self.advance.val() {
            self.h_valid.d.next = self.l_valid.q.val();
            self.h_beat0.d.next = self.rev0.y.val();
            self.h_beat1.d.next = self.rev1.y.val();
            self.h_hdr_long.d.next = self.l_hdr_len.q.val() >= self.beat16.val();
            self.h_pl_shift.d.next = self.pl_shift.val().get_bits::<10>(0);
            self.h_pl_end.d.next = self.l_pl_end.q.val().get_bits::<15>(0);
            self.h_pl_beats.d.next = self.l_pl_beats.q.val().get_bits::<8>(0);
            self.h_icrc_end.d.next = self.icrc_at.val().get_bits::<15>(0);
            self.h_fcs_tag.d.next = self.padded.val();
            self.h_frame_len.d.next = self.padded.val().get_bits::<15>(0);
            if self.l_fcs.q.val() {
                self.h_frame_len.d.next = self.with_fcs.val().get_bits::<15>(0);
                self.h_fcs_tag.d.next = self.padded.val() | self.fcs_flag.val();
            }
            self.h_layout.d.next = self.l_layout.q.val();
        }
        self.out_valid.next = self.h_valid.q.val();
        self.out_beat0.next = self.h_beat0.q.val();
        self.out_beat1.next = self.h_beat1.q.val();
        self.out_hdr_long.next = self.h_hdr_long.q.val();
        self.out_pl_shift.next = self.h_pl_shift.q.val();
        self.out_pl_end.next = self.h_pl_end.q.val();
        self.out_pl_beats.next = self.h_pl_beats.q.val();
        self.out_icrc_end.next = self.h_icrc_end.q.val();
        self.out_fcs_tag.next = self.h_fcs_tag.q.val();
        self.out_frame_len.next = self.h_frame_len.q.val();
        self.out_layout.next = self.h_layout.q.val();
    }
}
