//! The RoCE v2 receive pipeline: MAC stage → header parser, ICRC check and payload realigner →
//! one verdict and header record per frame, a payload stream, and a counter per drop reason.
//!
//! ```text
//!  MAC AXIS ─► MacRx ─┬─► header capture ─► RxHeaderParse (5 cycles) ──┐ R
//!   (no ready)        ├─► IcrcCheck (6 cycles after the last beat) ──┐ │
//!                     └─► delay line (6 beats) ─┬► RxPayloadAlign ─► payload AXIS (pl_*)
//!                                               ├► RxHostPath ─► not-RoCE frames (host_*)
//!                                               └► verdict + record ─► rec_*, counters
//! ```
//!
//! Timing is fixed relative to each frame's beats, so no per-frame queues are needed: the
//! parser result for a frame appears exactly when the frame's header-complete beat leaves the
//! 6-beat delay line, and stays until the next frame's does; the ICRC verdict appears exactly
//! when the frame's last beat leaves it. There the checks that need the whole frame (IP
//! length against the frame length, FCS, ICRC) join the parser's, in the order `rnic-spec`
//! specifies, and the record is registered.
//!
//! The pipeline never stalls: a MAC cannot be backpressured, so the record and payload outputs
//! have no ready either. The buffer that absorbs host-side backpressure (and drops frames that
//! do not fit, counted) belongs to the DMA engine in front of host memory.

use crate::mac::rx::MacRx;
use crate::roce::icrc::{IcrcCheck, ICRC_LATENCY};
use crate::roce::rx_align::RxPayloadAlign;
use crate::roce::rx_buffer::RxBuffer;
use crate::roce::rx_host::RxHostPath;
use crate::roce::rx_record::{RecordWord0, RecordWord1};
use crate::roce::rx_parse::{RxHeaderParse, PARSE_LATENCY};
use rnic_spec::wire::rx::DropReason;
use rnic_spec::wire::MIN_FRAME_NO_FCS;
use crate::stream::{c, numbers};
use rust_hdl::prelude::*;

/// Beats between the MAC stage and the verdict: the parser's and the ICRC's latency.
const DELAY: usize = 6;
const _: () = assert!(DELAY == PARSE_LATENCY && DELAY == ICRC_LATENCY);
/// Counters: index 0 counts accepted frames, index r counts drops with reason code r.
pub const NUM_COUNTERS: usize = 16;
const _: () = assert!(DropReason::ALL.len() < NUM_COUNTERS);


hdl_block! {
    pub struct RoceRx {
        pub clock: Signal<In, Clock>,
        /// Frames carry an FCS to check and strip (soft MAC).
        pub fcs_enable: Signal<In, Bit>,
        pub in_valid: Signal<In, Bit>,
        pub in_data: Signal<In, Bits<512>>,
        pub in_keep: Signal<In, Bits<64>>,
        pub in_last: Signal<In, Bit>,
        pub in_user: Signal<In, Bit>,
        /// Selects the counter shown on `counter`: 0 accepted, 1..=15 drop reasons, 16 accepted
        /// frames lost for lack of buffer.
        pub counter_sel: Signal<In, Bits<5>>,
        pub counter: Signal<Out, Bits<32>>,

        /// One pulse per frame with its verdict and headers.
        pub rec_valid: Signal<Out, Bit>,
        /// 0 = accepted, else the drop reason code (`rnic_spec::wire::rx::DropReason`).
        pub rec_reason: Signal<Out, Bits<5>>,
        pub rec_frame_len: Signal<Out, Bits<17>>,
        pub rec_vlan: Signal<Out, Bit>,
        pub rec_vlan_tci: Signal<Out, Bits<16>>,
        pub rec_eth_dst: Signal<Out, Bits<48>>,
        pub rec_eth_src: Signal<Out, Bits<48>>,
        pub rec_ipv6: Signal<Out, Bit>,
        pub rec_dscp: Signal<Out, Bits<6>>,
        pub rec_ecn: Signal<Out, Bits<2>>,
        pub rec_ttl: Signal<Out, Bits<8>>,
        pub rec_ip_src: Signal<Out, Bits<128>>,
        pub rec_ip_dst: Signal<Out, Bits<128>>,
        pub rec_udp_src_port: Signal<Out, Bits<16>>,
        pub rec_opcode: Signal<Out, Bits<8>>,
        pub rec_bth_flags: Signal<Out, Bits<8>>,
        pub rec_pkey: Signal<Out, Bits<16>>,
        pub rec_fecn: Signal<Out, Bit>,
        pub rec_becn: Signal<Out, Bit>,
        pub rec_dest_qp: Signal<Out, Bits<24>>,
        pub rec_ack_req: Signal<Out, Bit>,
        pub rec_psn: Signal<Out, Bits<24>>,
        pub rec_va: Signal<Out, Bits<64>>,
        pub rec_rkey: Signal<Out, Bits<32>>,
        pub rec_dma_len: Signal<Out, Bits<32>>,
        pub rec_swap_add: Signal<Out, Bits<64>>,
        pub rec_compare: Signal<Out, Bits<64>>,
        pub rec_aeth_syndrome: Signal<Out, Bits<8>>,
        pub rec_aeth_msn: Signal<Out, Bits<24>>,
        pub rec_atomic_ack: Signal<Out, Bits<64>>,
        pub rec_imm: Signal<Out, Bits<32>>,
        pub rec_ieth_rkey: Signal<Out, Bits<32>>,
        pub rec_qkey: Signal<Out, Bits<32>>,
        pub rec_src_qp: Signal<Out, Bits<24>>,
        pub rec_payload_len: Signal<Out, Bits<17>>,
        /// This frame sent a payload packet on the payload stream.
        pub rec_payload_sent: Signal<Out, Bit>,

        /// Accepted frames, after the commit point (`RxBuffer`): a record channel (two words,
        /// `rnic_spec::wire::rx::RECORD_WORD0/1`) and a payload channel, both valid/ready and in
        /// frame order. Nothing of a dropped frame comes out here.
        pub out_rec_valid: Signal<Out, Bit>,
        pub out_rec_ready: Signal<In, Bit>,
        pub out_rec_word0: Signal<Out, Bits<512>>,
        pub out_rec_word1: Signal<Out, Bits<512>>,
        pub out_pl_valid: Signal<Out, Bit>,
        pub out_pl_ready: Signal<In, Bit>,
        pub out_pl_data: Signal<Out, Bits<512>>,
        pub out_pl_keep: Signal<Out, Bits<64>>,
        pub out_pl_last: Signal<Out, Bit>,
        /// Sticky: an internal assumption broke (realigner FIFO overflow, buffer ordering);
        /// never expected, the tests check it.
        pub fault: Signal<Out, Bit>,

        /// Frames that are not RoCE v2, whole (FCS stripped), for the host; `host_user` on the
        /// last beat marks one that failed another check too.
        pub host_valid: Signal<Out, Bit>,
        pub host_data: Signal<Out, Bits<512>>,
        pub host_keep: Signal<Out, Bits<64>>,
        pub host_last: Signal<Out, Bit>,
        pub host_user: Signal<Out, Bit>,
        /// This frame went out on the host path.
        pub rec_host_sent: Signal<Out, Bit>,

        mac: MacRx,
        icrc: IcrcCheck,
        parse: RxHeaderParse,
        align: RxPayloadAlign,
        host: RxHostPath,
        word0: RecordWord0,
        word1: RecordWord1,
        buffer: RxBuffer,

        zero512: Constant<Bits<512>> = Constant::new(Bits::default()),
        header_beat: [Constant<Bits<2>>; 3] = numbers::<2, 3>(),
        min_frame: Constant<Bits<17>> = c::<17>(MIN_FRAME_NO_FCS as u64),
        ok: Constant<Bits<5>> = c::<5>(0),
        r_runt: Constant<Bits<5>> = c::<5>(DropReason::Runt.code() as u64),
        r_bad_fcs: Constant<Bits<5>> = c::<5>(DropReason::BadFcs.code() as u64),
        r_ip_length: Constant<Bits<5>> = c::<5>(DropReason::IpLength.code() as u64),
        r_bad_icrc: Constant<Bits<5>> = c::<5>(DropReason::BadIcrc.code() as u64),
        r_not_roce: Constant<Bits<5>> = c::<5>(DropReason::NotRoce.code() as u64),
        reason_id: [Constant<Bits<5>>; NUM_COUNTERS] = numbers::<5, NUM_COUNTERS>(),
        counter_id: [Constant<Bits<5>>; NUM_COUNTERS + 1] = numbers::<5, 17>(),
        one32: Constant<Bits<32>> = c::<32>(1),

        header_state: DFF<Bits<2>>,
        hdr0: DFF<Bits<512>>,
        dv: [DFF<Bit>; DELAY],
        dd: [DFF<Bits<512>>; DELAY],
        dc: [DFF<Bits<7>>; DELAY],
        dl: [DFF<Bit>; DELAY],
        dhc: [DFF<Bit>; DELAY],
        druntv: [DFF<Bit>; DELAY],
        dfcs: [DFF<Bit>; DELAY],
        dlen: [DFF<Bits<17>>; DELAY],
        counters: [DFF<Bits<32>>; NUM_COUNTERS],
        no_buffer_count: DFF<Bits<32>>,
        r_valid: DFF<Bit>,
        r_reason: DFF<Bits<5>>,
        r_frame_len: DFF<Bits<17>>,
        r_vlan: DFF<Bit>,
        r_vlan_tci: DFF<Bits<16>>,
        r_eth_dst: DFF<Bits<48>>,
        r_eth_src: DFF<Bits<48>>,
        r_ipv6: DFF<Bit>,
        r_dscp: DFF<Bits<6>>,
        r_ecn: DFF<Bits<2>>,
        r_ttl: DFF<Bits<8>>,
        r_ip_src: DFF<Bits<128>>,
        r_ip_dst: DFF<Bits<128>>,
        r_udp_src_port: DFF<Bits<16>>,
        r_opcode: DFF<Bits<8>>,
        r_bth_flags: DFF<Bits<8>>,
        r_pkey: DFF<Bits<16>>,
        r_fecn: DFF<Bit>,
        r_becn: DFF<Bit>,
        r_dest_qp: DFF<Bits<24>>,
        r_ack_req: DFF<Bit>,
        r_psn: DFF<Bits<24>>,
        r_va: DFF<Bits<64>>,
        r_rkey: DFF<Bits<32>>,
        r_dma_len: DFF<Bits<32>>,
        r_swap_add: DFF<Bits<64>>,
        r_compare: DFF<Bits<64>>,
        r_aeth_syndrome: DFF<Bits<8>>,
        r_aeth_msn: DFF<Bits<24>>,
        r_atomic_ack: DFF<Bits<64>>,
        r_imm: DFF<Bits<32>>,
        r_ieth_rkey: DFF<Bits<32>>,
        r_qkey: DFF<Bits<32>>,
        r_src_qp: DFF<Bits<24>>,
        r_payload_len: DFF<Bits<17>>,
        r_payload_sent: DFF<Bit>,
        r_host_sent: DFF<Bit>,

        header_complete: Signal<Local, Bit>,
        frame_end: Signal<Local, Bit>,
        ip_length_bad: Signal<Local, Bit>,
        reason: Signal<Local, Bits<5>>,
    }
}

impl Logic for RoceRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, header_state, hdr0, no_buffer_count, r_valid, r_reason, r_frame_len, r_vlan, r_vlan_tci, r_eth_dst,
            r_eth_src, r_ipv6, r_dscp, r_ecn, r_ttl, r_ip_src, r_ip_dst, r_udp_src_port, r_opcode, r_bth_flags,
            r_pkey, r_fecn, r_becn, r_dest_qp, r_ack_req, r_psn, r_va, r_rkey, r_dma_len, r_swap_add, r_compare,
            r_aeth_syndrome, r_aeth_msn, r_atomic_ack, r_imm, r_ieth_rkey, r_qkey, r_src_qp, r_payload_len,
            r_payload_sent, r_host_sent
        );
        for i in 0..DELAY {
            self.dv[i].clock.next = self.clock.val();
            self.dd[i].clock.next = self.clock.val();
            self.dc[i].clock.next = self.clock.val();
            self.dl[i].clock.next = self.clock.val();
            self.dhc[i].clock.next = self.clock.val();
            self.druntv[i].clock.next = self.clock.val();
            self.dfcs[i].clock.next = self.clock.val();
            self.dlen[i].clock.next = self.clock.val();
        }
        for i in 1..DELAY {
            self.dv[i].d.next = self.dv[i - 1].q.val();
            self.dd[i].d.next = self.dd[i - 1].q.val();
            self.dc[i].d.next = self.dc[i - 1].q.val();
            self.dl[i].d.next = self.dl[i - 1].q.val();
            self.dhc[i].d.next = self.dhc[i - 1].q.val();
            self.druntv[i].d.next = self.druntv[i - 1].q.val();
            self.dfcs[i].d.next = self.dfcs[i - 1].q.val();
            self.dlen[i].d.next = self.dlen[i - 1].q.val();
        }
        for i in 0..NUM_COUNTERS {
            self.counters[i].clock.next = self.clock.val();
            self.counters[i].d.next = self.counters[i].q.val();
        }

        // MAC stage.
        self.mac.clock.next = self.clock.val();
        self.mac.fcs_enable.next = self.fcs_enable.val();
        self.mac.in_valid.next = self.in_valid.val();
        self.mac.in_data.next = self.in_data.val();
        self.mac.in_keep.next = self.in_keep.val();
        self.mac.in_last.next = self.in_last.val();
        self.mac.in_user.next = self.in_user.val();

        // ICRC over the FCS-less frame.
        self.icrc.clock.next = self.clock.val();
        self.icrc.in_valid.next = self.mac.out_valid.val();
        self.icrc.in_data.next = self.mac.out_data.val();
        self.icrc.in_count.next = self.mac.out_count.val();
        self.icrc.in_last.next = self.mac.out_last.val();

        // Header capture: the first two beats go to the parser once both are there (or the
        // only one has come).
        self.header_complete.next = false;
        self.parse.in_h0.next = self.mac.out_data.val();
        self.parse.in_h1.next = self.zero512.val();
        if self.header_state.q.val() == self.header_beat[0].val() {
            self.header_complete.next = self.mac.out_last.val();
        }
        if self.header_state.q.val() == self.header_beat[1].val() {
            self.header_complete.next = true;
            self.parse.in_h0.next = self.hdr0.q.val();
            self.parse.in_h1.next = self.mac.out_data.val();
        }
        if self.mac.out_valid.val() {
            if self.header_state.q.val() == self.header_beat[0].val() {
                self.hdr0.d.next = self.mac.out_data.val();
                self.header_state.d.next = self.header_beat[1].val();
            } else {
                self.header_state.d.next = self.header_beat[2].val();
            }
            if self.mac.out_last.val() {
                self.header_state.d.next = self.header_beat[0].val();
            }
        }
        self.parse.clock.next = self.clock.val();
        self.parse.in_valid.next = self.mac.out_valid.val() & self.header_complete.val();

        // Delay line: the stream meets the parser's result and the ICRC verdict.
        self.dv[0].d.next = self.mac.out_valid.val();
        self.dd[0].d.next = self.mac.out_data.val();
        self.dc[0].d.next = self.mac.out_count.val();
        self.dl[0].d.next = self.mac.out_last.val();
        self.dhc[0].d.next = self.mac.out_valid.val() & self.header_complete.val();
        self.druntv[0].d.next = self.mac.out_runt.val();
        // A MAC-reported error counts as a bad FCS.
        self.dfcs[0].d.next = self.mac.out_bad_fcs.val() | (self.mac.out_user.val() & !self.mac.out_runt.val());
        self.dlen[0].d.next = self.mac.out_len.val();

        self.align.clock.next = self.clock.val();
        self.align.in_valid.next = self.dv[5].q.val();
        self.align.in_data.next = self.dd[5].q.val();
        self.align.in_count.next = self.dc[5].q.val();
        self.align.in_last.next = self.dl[5].q.val();
        self.align.in_hc.next = self.dhc[5].q.val() & self.parse.out_valid.val();
        self.align.in_beat1.next = self.parse.out_payload_beat1.val();
        self.align.in_shift_right.next = self.parse.out_shift_right.val();
        self.align.in_shift_left.next = self.parse.out_shift_left.val();
        self.align.in_len.next = self.parse.out_payload_len.val();
        self.align.in_end.next = self.parse.out_payload_end.val();
        self.align.in_emit.next = self.parse.out_emit.val();

        self.host.clock.next = self.clock.val();
        self.host.in_valid.next = self.dv[5].q.val();
        self.host.in_data.next = self.dd[5].q.val();
        self.host.in_count.next = self.dc[5].q.val();
        self.host.in_last.next = self.dl[5].q.val();
        self.host.in_hc.next = self.dhc[5].q.val() & self.parse.out_valid.val();
        self.host.in_route.next = self.parse.out_host.val();
        self.host.in_verdict_not_roce.next = self.r_reason.q.val() == self.r_not_roce.val();
        self.host_valid.next = self.host.out_valid.val();
        self.host_data.next = self.host.out_data.val();
        self.host_keep.next = self.host.out_keep.val();
        self.host_last.next = self.host.out_last.val();
        self.host_user.next = self.host.out_user.val();

        // Verdict, in the specified order (the last assignment wins).
        self.frame_end.next = self.dv[5].q.val() & self.dl[5].q.val();
        self.ip_length_bad.next = self.parse.out_ip_short.val()
            | ((self.parse.out_ip_end.val() != self.dlen[5].q.val())
                & !((self.dlen[5].q.val() == self.min_frame.val()) & (self.parse.out_ip_end.val() < self.min_frame.val())));
        self.reason.next = self.ok.val();
        if !(self.icrc.out_valid.val() & self.icrc.out_ok.val()) {
            self.reason.next = self.r_bad_icrc.val();
        }
        if self.parse.out_reason_post.val() != self.ok.val() {
            self.reason.next = self.parse.out_reason_post.val();
        }
        if self.ip_length_bad.val() {
            self.reason.next = self.r_ip_length.val();
        }
        if self.parse.out_reason_pre.val() != self.ok.val() {
            self.reason.next = self.parse.out_reason_pre.val();
        }
        if self.dfcs[5].q.val() {
            self.reason.next = self.r_bad_fcs.val();
        }
        if self.druntv[5].q.val() {
            self.reason.next = self.r_runt.val();
        }
        // Counted from the registered record, off the verdict's path.
        for i in 0..NUM_COUNTERS {
            if self.r_valid.q.val() & (self.r_reason.q.val() == self.reason_id[i].val()) {
                self.counters[i].d.next = self.counters[i].q.val() + self.one32.val();
            }
        }
        if self.buffer.no_buffer.val() {
            self.no_buffer_count.d.next = self.no_buffer_count.q.val() + self.one32.val();
        }
        self.counter.next = self.counters[0].q.val();
        for i in 0..NUM_COUNTERS {
            if self.counter_sel.val() == self.counter_id[i].val() {
                self.counter.next = self.counters[i].q.val();
            }
        }
        if self.counter_sel.val() == self.counter_id[16].val() {
            self.counter.next = self.no_buffer_count.q.val();
        }

        // The commit point: records packed, payload and verdicts into the buffer.
        self.word0.opcode.next = self.r_opcode.q.val();
        self.word0.bth_flags.next = self.r_bth_flags.q.val();
        self.word0.pkey.next = self.r_pkey.q.val();
        self.word0.fecn.next = self.r_fecn.q.val().into();
        self.word0.becn.next = self.r_becn.q.val().into();
        self.word0.ack_req.next = self.r_ack_req.q.val().into();
        self.word0.dest_qp.next = self.r_dest_qp.q.val();
        self.word0.psn.next = self.r_psn.q.val();
        self.word0.payload_len.next = self.r_payload_len.q.val().get_bits::<13>(0);
        self.word0.va.next = self.r_va.q.val();
        self.word0.rkey.next = self.r_rkey.q.val();
        self.word0.dma_len.next = self.r_dma_len.q.val();
        self.word0.imm.next = self.r_imm.q.val();
        self.word0.ieth_rkey.next = self.r_ieth_rkey.q.val();
        self.word0.aeth_syndrome.next = self.r_aeth_syndrome.q.val();
        self.word0.aeth_msn.next = self.r_aeth_msn.q.val();
        self.word0.qkey.next = self.r_qkey.q.val();
        self.word0.src_qp.next = self.r_src_qp.q.val();
        self.word0.ipv6.next = self.r_ipv6.q.val().into();
        self.word0.vlan.next = self.r_vlan.q.val().into();
        self.word0.vlan_tci.next = self.r_vlan_tci.q.val();
        self.word0.dscp.next = self.r_dscp.q.val();
        self.word0.ecn.next = self.r_ecn.q.val();
        self.word0.udp_src_port.next = self.r_udp_src_port.q.val();
        self.word1.swap_add.next = self.r_swap_add.q.val();
        self.word1.compare.next = self.r_compare.q.val();
        self.word1.atomic_ack.next = self.r_atomic_ack.q.val();
        self.word1.ip_src.next = self.r_ip_src.q.val();
        self.word1.ip_dst.next = self.r_ip_dst.q.val();
        self.word1.eth_src.next = self.r_eth_src.q.val();
        self.word1.ttl.next = self.r_ttl.q.val();
        self.buffer.clock.next = self.clock.val();
        self.buffer.pl_valid.next = self.align.out_valid.val();
        self.buffer.pl_data.next = self.align.out_data.val();
        self.buffer.pl_keep.next = self.align.out_keep.val();
        self.buffer.pl_last.next = self.align.out_last.val();
        self.buffer.pl_user.next = self.align.out_user.val();
        self.buffer.rec_valid.next = self.r_valid.q.val();
        self.buffer.rec_accept.next = self.r_reason.q.val() == self.ok.val();
        self.buffer.rec_payload.next = self.r_payload_sent.q.val();
        self.buffer.rec_word0.next = self.word0.word.val();
        self.buffer.rec_word1.next = self.word1.word.val();
        self.buffer.out_rec_ready.next = self.out_rec_ready.val();
        self.buffer.out_pl_ready.next = self.out_pl_ready.val();
        self.out_rec_valid.next = self.buffer.out_rec_valid.val();
        self.out_rec_word0.next = self.buffer.out_rec_word0.val();
        self.out_rec_word1.next = self.buffer.out_rec_word1.val();
        self.out_pl_valid.next = self.buffer.out_pl_valid.val();
        self.out_pl_data.next = self.buffer.out_pl_data.val();
        self.out_pl_keep.next = self.buffer.out_pl_keep.val();
        self.out_pl_last.next = self.buffer.out_pl_last.val();
        self.fault.next = self.align.overflow.val() | self.buffer.hazard.val();

        // The record.
        self.r_valid.d.next = self.frame_end.val();
        if self.frame_end.val() {
            self.r_reason.d.next = self.reason.val();
            self.r_frame_len.d.next = self.dlen[5].q.val();
            self.r_vlan.d.next = self.parse.out_vlan.val();
            self.r_vlan_tci.d.next = self.parse.out_vlan_tci.val();
            self.r_eth_dst.d.next = self.parse.out_eth_dst.val();
            self.r_eth_src.d.next = self.parse.out_eth_src.val();
            self.r_ipv6.d.next = self.parse.out_ipv6.val();
            self.r_dscp.d.next = self.parse.out_dscp.val();
            self.r_ecn.d.next = self.parse.out_ecn.val();
            self.r_ttl.d.next = self.parse.out_ttl.val();
            self.r_ip_src.d.next = self.parse.out_ip_src.val();
            self.r_ip_dst.d.next = self.parse.out_ip_dst.val();
            self.r_udp_src_port.d.next = self.parse.out_udp_src_port.val();
            self.r_opcode.d.next = self.parse.out_opcode.val();
            self.r_bth_flags.d.next = self.parse.out_bth_flags.val();
            self.r_pkey.d.next = self.parse.out_pkey.val();
            self.r_fecn.d.next = self.parse.out_fecn.val();
            self.r_becn.d.next = self.parse.out_becn.val();
            self.r_dest_qp.d.next = self.parse.out_dest_qp.val();
            self.r_ack_req.d.next = self.parse.out_ack_req.val();
            self.r_psn.d.next = self.parse.out_psn.val();
            self.r_va.d.next = self.parse.out_va.val();
            self.r_rkey.d.next = self.parse.out_rkey.val();
            self.r_dma_len.d.next = self.parse.out_dma_len.val();
            self.r_swap_add.d.next = self.parse.out_swap_add.val();
            self.r_compare.d.next = self.parse.out_compare.val();
            self.r_aeth_syndrome.d.next = self.parse.out_aeth_syndrome.val();
            self.r_aeth_msn.d.next = self.parse.out_aeth_msn.val();
            self.r_atomic_ack.d.next = self.parse.out_atomic_ack.val();
            self.r_imm.d.next = self.parse.out_imm.val();
            self.r_ieth_rkey.d.next = self.parse.out_ieth_rkey.val();
            self.r_qkey.d.next = self.parse.out_qkey.val();
            self.r_src_qp.d.next = self.parse.out_src_qp.val();
            self.r_payload_len.d.next = self.parse.out_payload_len.val();
            self.r_payload_sent.d.next = self.parse.out_emit.val();
            self.r_host_sent.d.next = self.parse.out_host.val();
        }
        self.rec_valid.next = self.r_valid.q.val();
        self.rec_reason.next = self.r_reason.q.val();
        self.rec_frame_len.next = self.r_frame_len.q.val();
        self.rec_vlan.next = self.r_vlan.q.val();
        self.rec_vlan_tci.next = self.r_vlan_tci.q.val();
        self.rec_eth_dst.next = self.r_eth_dst.q.val();
        self.rec_eth_src.next = self.r_eth_src.q.val();
        self.rec_ipv6.next = self.r_ipv6.q.val();
        self.rec_dscp.next = self.r_dscp.q.val();
        self.rec_ecn.next = self.r_ecn.q.val();
        self.rec_ttl.next = self.r_ttl.q.val();
        self.rec_ip_src.next = self.r_ip_src.q.val();
        self.rec_ip_dst.next = self.r_ip_dst.q.val();
        self.rec_udp_src_port.next = self.r_udp_src_port.q.val();
        self.rec_opcode.next = self.r_opcode.q.val();
        self.rec_bth_flags.next = self.r_bth_flags.q.val();
        self.rec_pkey.next = self.r_pkey.q.val();
        self.rec_fecn.next = self.r_fecn.q.val();
        self.rec_becn.next = self.r_becn.q.val();
        self.rec_dest_qp.next = self.r_dest_qp.q.val();
        self.rec_ack_req.next = self.r_ack_req.q.val();
        self.rec_psn.next = self.r_psn.q.val();
        self.rec_va.next = self.r_va.q.val();
        self.rec_rkey.next = self.r_rkey.q.val();
        self.rec_dma_len.next = self.r_dma_len.q.val();
        self.rec_swap_add.next = self.r_swap_add.q.val();
        self.rec_compare.next = self.r_compare.q.val();
        self.rec_aeth_syndrome.next = self.r_aeth_syndrome.q.val();
        self.rec_aeth_msn.next = self.r_aeth_msn.q.val();
        self.rec_atomic_ack.next = self.r_atomic_ack.q.val();
        self.rec_imm.next = self.r_imm.q.val();
        self.rec_ieth_rkey.next = self.r_ieth_rkey.q.val();
        self.rec_qkey.next = self.r_qkey.q.val();
        self.rec_src_qp.next = self.r_src_qp.q.val();
        self.rec_payload_len.next = self.r_payload_len.q.val();
        self.rec_payload_sent.next = self.r_payload_sent.q.val();
        self.rec_host_sent.next = self.r_host_sent.q.val();
    }
}
