//! The transmit packet engine, `rnic_tx`: packet descriptors and their payload in, complete
//! RoCE v2 Ethernet frames out.
//!
//! ```text
//!  descriptor ─► TxHeader ─► headers ┐
//!                                    ├► TxAssemble ─► CrcInsert (ICRC) ─► CrcInsert (FCS) ─► frame FIFO ─► out
//!  payload (byte 0 aligned) ─────────┘      ▲                                                    │
//!                                           └──────────── credit: beats in flight < FIFO size ◄──┘
//! ```
//!
//! Every length is known when the headers are built, so the assembler lays out the whole frame
//! at once: headers, payload shifted to the header's end, zero pad, four zero bytes for the
//! ICRC, zeros up to the 60-byte minimum and four for the FCS when the MAC adds one. The CRC
//! blocks then only fill in their bytes, and nothing after the assembler stalls. The frame FIFO
//! publishes a frame only when its last beat is in, so the MAC never sees a frame underrun
//! (a CMAC requires `tvalid` to stay high from first to last beat); the assembler runs only
//! while the FIFO has room for every beat in flight.

use crate::crc_insert::{CrcInsert, END_BITS};
use crate::ram_fifo::RamFifo;
use crate::roce::tx_header::{TxHeader, LEN_BITS};
use crate::stream::{c, lanes, numbers, KeepFromCount, BEAT_BYTES};
use rust_hdl::prelude::*;

crate::hdl_block! {
    /// Lays a frame out beat by beat: the header beats, then the payload shifted to the end of
    /// the headers (each output beat takes the top of the previous payload beat and the bottom
    /// of the current one), then zeros up to the frame length. One beat per cycle.
    pub struct TxAssemble {
        pub clock: Signal<In, Clock>,
        pub hdr_valid: Signal<In, Bit>,
        pub hdr_ready: Signal<Out, Bit>,
        pub hdr_beat0: Signal<In, Bits<512>>,
        pub hdr_beat1: Signal<In, Bits<512>>,
        pub hdr_long: Signal<In, Bit>,
        pub hdr_pl_shift: Signal<In, Bits<10>>,
        pub hdr_pl_end: Signal<In, Bits<15>>,
        pub hdr_pl_beats: Signal<In, Bits<8>>,
        pub hdr_frame_len: Signal<In, Bits<15>>,
        /// Carried to the first beat's side band for the CRC blocks.
        pub hdr_icrc_end: Signal<In, Bits<END_BITS>>,
        pub hdr_layout: Signal<In, Bits<2>>,
        pub hdr_fcs_tag: Signal<In, Bits<16>>,
        /// Payload, byte 0 of each packet's payload in byte 0 of a beat; exactly
        /// `hdr_pl_beats` beats per packet (bytes past the payload length are ignored).
        pub pl_valid: Signal<In, Bit>,
        pub pl_ready: Signal<Out, Bit>,
        pub pl_data: Signal<In, Bits<512>>,
        /// The frame FIFO has room for another beat.
        pub credit: Signal<In, Bit>,
        pub out_valid: Signal<Out, Bit>,
        pub out_data: Signal<Out, Bits<512>>,
        pub out_count: Signal<Out, Bits<7>>,
        pub out_first: Signal<Out, Bit>,
        pub out_last: Signal<Out, Bit>,
        pub out_icrc_end: Signal<Out, Bits<END_BITS>>,
        pub out_layout: Signal<Out, Bits<2>>,
        pub out_fcs_tag: Signal<Out, Bits<16>>,

        lane: [Constant<Bits<512>>; 64] = lanes(),
        zero512: Constant<Bits<512>> = Constant::new(Bits::default()),
        zero8: Constant<Bits<8>> = c::<8>(0),
        one8: Constant<Bits<8>> = c::<8>(1),
        k_id: [Constant<Bits<2>>; 3] = numbers::<2, 3>(),
        beat15: Constant<Bits<15>> = c::<15>(BEAT_BYTES as u64),
        word_bits: Constant<Bits<10>> = c::<10>(512),

        busy: DFF<Bit>,
        /// Beat index in the frame, saturating at 2 (only 0, 1 and "more" matter).
        k: DFF<Bits<2>>,
        long: DFF<Bit>,
        beat0: DFF<Bits<512>>,
        beat1: DFF<Bits<512>>,
        shift: DFF<Bits<10>>,
        pl_left: DFF<Bits<8>>,
        /// Payload end and frame end relative to the current beat's byte 0.
        pl_end: DFF<Bits<15>>,
        frame_left: DFF<Bits<15>>,
        prev: DFF<Bits<512>>,
        icrc_end: DFF<Bits<END_BITS>>,
        layout: DFF<Bits<2>>,
        fcs_tag: DFF<Bits<16>>,
        o_valid: DFF<Bit>,
        o_data: DFF<Bits<512>>,
        o_count: DFF<Bits<7>>,
        o_first: DFF<Bit>,
        o_last: DFF<Bit>,
        o_icrc_end: DFF<Bits<END_BITS>>,
        o_layout: DFF<Bits<2>>,
        o_fcs_tag: DFF<Bits<16>>,

        in_payload: Signal<Local, Bit>,
        need_pl: Signal<Local, Bit>,
        take_pl: Signal<Local, Bit>,
        emit: Signal<Local, Bit>,
        last: Signal<Local, Bit>,
        load: Signal<Local, Bit>,
        cur: Signal<Local, Bits<512>>,
        shifted: Signal<Local, Bits<512>>,
        pl_mask: Signal<Local, Bits<512>>,
        hdr_part: Signal<Local, Bits<512>>,
        count: Signal<Local, Bits<7>>,
    }
}

impl Logic for TxAssemble {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, busy, k, long, beat0, beat1, shift, pl_left, pl_end, frame_left, prev, icrc_end, layout,
            fcs_tag, o_valid, o_data, o_count, o_first, o_last, o_icrc_end, o_layout, o_fcs_tag
        );
        // The payload part starts at beat 0, or at beat 1 behind a long header.
        self.in_payload.next = (self.k.q.val() != self.k_id[0].val()) | !self.long.q.val();
        self.need_pl.next = self.in_payload.val() & (self.pl_left.q.val() != self.zero8.val());
        self.pl_ready.next = self.busy.q.val() & self.credit.val() & self.need_pl.val();
        self.take_pl.next = self.pl_ready.val() & self.pl_valid.val();
        self.emit.next = self.busy.q.val() & self.credit.val() & (!self.need_pl.val() | self.pl_valid.val());
        self.last.next = self.frame_left.q.val() <= self.beat15.val();

        self.cur.next = self.zero512.val();
        if self.need_pl.val() {
            self.cur.next = self.pl_data.val();
        }
        self.shifted.next = self.zero512.val();
        if self.in_payload.val() {
            self.shifted.next = (self.cur.val() << self.shift.q.val())
                | (self.prev.q.val() >> (self.word_bits.val() - self.shift.q.val()));
        }
        // Payload bytes end at pl_end; what follows (pad, CRC room, padding) is zero.
        self.pl_mask.next = self.zero512.val();
        for i in 0..64 {
            if !self.pl_end.q.val().get_bit(14) & (self.pl_end.q.val().index() > i) {
                self.pl_mask.next = self.pl_mask.val() | self.lane[i].val();
            }
        }
        self.hdr_part.next = self.zero512.val();
        if self.k.q.val() == self.k_id[0].val() {
            self.hdr_part.next = self.beat0.q.val();
        }
        if self.k.q.val() == self.k_id[1].val() {
            self.hdr_part.next = self.beat1.q.val();
        }
        self.count.next = self.frame_left.q.val().get_bits::<7>(0);
        if !self.last.val() {
            self.count.next = self.beat15.val().get_bits::<7>(0);
        }

        self.o_valid.d.next = self.emit.val();
        self.o_data.d.next = self.hdr_part.val() | (self.shifted.val() & self.pl_mask.val());
        self.o_count.d.next = self.count.val();
        self.o_first.d.next = self.k.q.val() == self.k_id[0].val();
        self.o_last.d.next = self.last.val();
        self.o_icrc_end.d.next = self.icrc_end.q.val();
        self.o_layout.d.next = self.layout.q.val();
        self.o_fcs_tag.d.next = self.fcs_tag.q.val();

        if self.emit.val() {
            if self.k.q.val() != self.k_id[2].val() {
                self.k.d.next = self.k.q.val() + self.k_id[1].val();
            }
            self.pl_end.d.next = self.pl_end.q.val() - self.beat15.val();
            self.frame_left.d.next = self.frame_left.q.val() - self.beat15.val();
            self.busy.d.next = !self.last.val();
        }
        if self.take_pl.val() {
            self.prev.d.next = self.pl_data.val();
            self.pl_left.d.next = self.pl_left.q.val() - self.one8.val();
        }

        // The next packet's headers load as the last beat of this one goes out.
        self.hdr_ready.next = !self.busy.q.val() | (self.emit.val() & self.last.val());
        self.load.next = self.hdr_valid.val() & self.hdr_ready.val();
        if self.load.val() {
            self.busy.d.next = true;
            self.k.d.next = self.k_id[0].val();
            self.long.d.next = self.hdr_long.val();
            self.beat0.d.next = self.hdr_beat0.val();
            self.beat1.d.next = self.hdr_beat1.val();
            self.shift.d.next = self.hdr_pl_shift.val();
            self.pl_left.d.next = self.hdr_pl_beats.val();
            self.pl_end.d.next = self.hdr_pl_end.val();
            self.frame_left.d.next = self.hdr_frame_len.val();
            self.prev.d.next = self.zero512.val();
            self.icrc_end.d.next = self.hdr_icrc_end.val();
            self.layout.d.next = self.hdr_layout.val();
            self.fcs_tag.d.next = self.hdr_fcs_tag.val();
        }

        self.out_valid.next = self.o_valid.q.val();
        self.out_data.next = self.o_data.q.val();
        self.out_count.next = self.o_count.q.val();
        self.out_first.next = self.o_first.q.val();
        self.out_last.next = self.o_last.q.val();
        self.out_icrc_end.next = self.o_icrc_end.q.val();
        self.out_layout.next = self.o_layout.q.val();
        self.out_fcs_tag.next = self.o_fcs_tag.q.val();
    }
}

/// Frame FIFO: 128 beats, two frames of the largest size (4096-byte MTU + headers = 66 beats).
const FIFO_PTR: usize = 8;
const FIFO_ADDR: usize = 7;

crate::hdl_block! {
    /// The transmit packet engine (`rnic_tx`).
    pub struct RoceTx {
        pub clock: Signal<In, Clock>,
        /// Soft-MAC mode: append the FCS (a hard MAC such as CMAC appends its own).
        pub fcs_enable: Signal<In, Bit>,
        /// Packet descriptors: see [`TxHeader`].
        pub hdr_valid: Signal<In, Bit>,
        pub hdr_ready: Signal<Out, Bit>,
        pub hdr_eth_dst: Signal<In, Bits<48>>,
        pub hdr_eth_src: Signal<In, Bits<48>>,
        pub hdr_vlan: Signal<In, Bit>,
        pub hdr_vlan_tci: Signal<In, Bits<16>>,
        pub hdr_ipv6: Signal<In, Bit>,
        pub hdr_ip_src: Signal<In, Bits<128>>,
        pub hdr_ip_dst: Signal<In, Bits<128>>,
        pub hdr_dscp: Signal<In, Bits<6>>,
        pub hdr_ecn: Signal<In, Bits<2>>,
        pub hdr_ttl: Signal<In, Bits<8>>,
        pub hdr_flow_label: Signal<In, Bits<20>>,
        pub hdr_udp_src_port: Signal<In, Bits<16>>,
        pub hdr_opcode: Signal<In, Bits<8>>,
        pub hdr_se: Signal<In, Bit>,
        pub hdr_pkey: Signal<In, Bits<16>>,
        pub hdr_dest_qp: Signal<In, Bits<24>>,
        pub hdr_ack_req: Signal<In, Bit>,
        pub hdr_psn: Signal<In, Bits<24>>,
        pub hdr_va: Signal<In, Bits<64>>,
        pub hdr_rkey: Signal<In, Bits<32>>,
        pub hdr_dma_len: Signal<In, Bits<32>>,
        pub hdr_imm: Signal<In, Bits<32>>,
        pub hdr_aeth_syndrome: Signal<In, Bits<8>>,
        pub hdr_aeth_msn: Signal<In, Bits<24>>,
        pub hdr_atomic_value: Signal<In, Bits<64>>,
        pub hdr_atomic_compare: Signal<In, Bits<64>>,
        pub hdr_payload_len: Signal<In, Bits<LEN_BITS>>,
        /// Payload beats, ceil(payload length / 64) per packet, byte 0 first.
        pub pl_valid: Signal<In, Bit>,
        pub pl_ready: Signal<Out, Bit>,
        pub pl_data: Signal<In, Bits<512>>,
        /// Frames to the MAC / link: whole frames, `tvalid` high from first to last beat.
        pub out_valid: Signal<Out, Bit>,
        pub out_ready: Signal<In, Bit>,
        pub out_data: Signal<Out, Bits<512>>,
        pub out_keep: Signal<Out, Bits<64>>,
        pub out_last: Signal<Out, Bit>,
        /// Frames sent (handed to the MAC).
        pub frames: Signal<Out, Bits<32>>,

        header: TxHeader,
        assemble: TxAssemble,
        icrc: CrcInsert = CrcInsert::icrc(),
        fcs: CrcInsert = CrcInsert::fcs(),
        fifo: RamFifo<FIFO_PTR, FIFO_ADDR, 512, 7, 1>,
        keep: KeepFromCount,
        one_ptr: Constant<Bits<FIFO_PTR>> = c::<FIFO_PTR>(1),
        capacity: Constant<Bits<FIFO_PTR>> = c::<FIFO_PTR>(1 << FIFO_ADDR),
        one32: Constant<Bits<32>> = c::<32>(1),
        zero2: Constant<Bits<2>> = c::<2>(0),
        last_bit: Constant<Bits<1>> = c::<1>(1),

        wr_ptr: DFF<Bits<FIFO_PTR>>,
        tail: DFF<Bits<FIFO_PTR>>,
        in_flight: DFF<Bits<FIFO_PTR>>,
        frame_count: DFF<Bits<32>>,

        issued: Signal<Local, Bit>,
        taken: Signal<Local, Bit>,
    }
}

impl Logic for RoceTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_ptr, tail, in_flight, frame_count);
        self.header.clock.next = self.clock.val();
        self.header.fcs_enable.next = self.fcs_enable.val();
        self.header.in_valid.next = self.hdr_valid.val();
        self.hdr_ready.next = self.header.in_ready.val();
        self.header.in_eth_dst.next = self.hdr_eth_dst.val();
        self.header.in_eth_src.next = self.hdr_eth_src.val();
        self.header.in_vlan.next = self.hdr_vlan.val();
        self.header.in_vlan_tci.next = self.hdr_vlan_tci.val();
        self.header.in_ipv6.next = self.hdr_ipv6.val();
        self.header.in_ip_src.next = self.hdr_ip_src.val();
        self.header.in_ip_dst.next = self.hdr_ip_dst.val();
        self.header.in_dscp.next = self.hdr_dscp.val();
        self.header.in_ecn.next = self.hdr_ecn.val();
        self.header.in_ttl.next = self.hdr_ttl.val();
        self.header.in_flow_label.next = self.hdr_flow_label.val();
        self.header.in_udp_src_port.next = self.hdr_udp_src_port.val();
        self.header.in_opcode.next = self.hdr_opcode.val();
        self.header.in_se.next = self.hdr_se.val();
        self.header.in_pkey.next = self.hdr_pkey.val();
        self.header.in_dest_qp.next = self.hdr_dest_qp.val();
        self.header.in_ack_req.next = self.hdr_ack_req.val();
        self.header.in_psn.next = self.hdr_psn.val();
        self.header.in_va.next = self.hdr_va.val();
        self.header.in_rkey.next = self.hdr_rkey.val();
        self.header.in_dma_len.next = self.hdr_dma_len.val();
        self.header.in_imm.next = self.hdr_imm.val();
        self.header.in_aeth_syndrome.next = self.hdr_aeth_syndrome.val();
        self.header.in_aeth_msn.next = self.hdr_aeth_msn.val();
        self.header.in_atomic_value.next = self.hdr_atomic_value.val();
        self.header.in_atomic_compare.next = self.hdr_atomic_compare.val();
        self.header.in_payload_len.next = self.hdr_payload_len.val();

        self.assemble.clock.next = self.clock.val();
        self.assemble.hdr_valid.next = self.header.out_valid.val();
        self.header.out_ready.next = self.assemble.hdr_ready.val();
        self.assemble.hdr_beat0.next = self.header.out_beat0.val();
        self.assemble.hdr_beat1.next = self.header.out_beat1.val();
        self.assemble.hdr_long.next = self.header.out_hdr_long.val();
        self.assemble.hdr_pl_shift.next = self.header.out_pl_shift.val();
        self.assemble.hdr_pl_end.next = self.header.out_pl_end.val();
        self.assemble.hdr_pl_beats.next = self.header.out_pl_beats.val();
        self.assemble.hdr_frame_len.next = self.header.out_frame_len.val();
        self.assemble.hdr_icrc_end.next = self.header.out_icrc_end.val();
        self.assemble.hdr_layout.next = self.header.out_layout.val();
        self.assemble.hdr_fcs_tag.next = self.header.out_fcs_tag.val();
        self.assemble.pl_valid.next = self.pl_valid.val();
        self.pl_ready.next = self.assemble.pl_ready.val();
        self.assemble.pl_data.next = self.pl_data.val();
        // Room for every beat between the assembler and the FIFO's output.
        self.assemble.credit.next = self.in_flight.q.val() < self.capacity.val();

        self.icrc.clock.next = self.clock.val();
        self.icrc.in_valid.next = self.assemble.out_valid.val();
        self.icrc.in_data.next = self.assemble.out_data.val();
        self.icrc.in_count.next = self.assemble.out_count.val();
        self.icrc.in_first.next = self.assemble.out_first.val();
        self.icrc.in_last.next = self.assemble.out_last.val();
        self.icrc.in_end.next = self.assemble.out_icrc_end.val();
        self.icrc.in_layout.next = self.assemble.out_layout.val();
        self.icrc.in_enable.next = true;
        // The FCS block's per-frame inputs ride through the ICRC block in its tag.
        self.icrc.in_tag.next = self.assemble.out_fcs_tag.val();

        self.fcs.clock.next = self.clock.val();
        self.fcs.in_valid.next = self.icrc.out_valid.val();
        self.fcs.in_data.next = self.icrc.out_data.val();
        self.fcs.in_count.next = self.icrc.out_count.val();
        self.fcs.in_first.next = self.icrc.out_first.val();
        self.fcs.in_last.next = self.icrc.out_last.val();
        self.fcs.in_end.next = self.icrc.out_tag.val().get_bits::<END_BITS>(0);
        self.fcs.in_layout.next = self.zero2.val();
        self.fcs.in_enable.next = self.icrc.out_tag.val().get_bit(15);
        self.fcs.in_tag.next = self.icrc.out_tag.val();

        // Frame FIFO: beats are written as they come; a frame becomes readable at its last beat.
        self.fifo.clock.next = self.clock.val();
        self.fifo.wr_en.next = self.fcs.out_valid.val();
        self.fifo.wr_addr.next = self.wr_ptr.q.val().get_bits::<FIFO_ADDR>(0);
        self.fifo.wr_a.next = self.fcs.out_data.val();
        self.fifo.wr_b.next = self.fcs.out_count.val();
        self.fifo.wr_c.next = self.zero2.val().get_bits::<1>(0);
        if self.fcs.out_last.val() {
            self.fifo.wr_c.next = self.last_bit.val();
        }
        if self.fcs.out_valid.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + self.one_ptr.val();
            if self.fcs.out_last.val() {
                self.tail.d.next = self.wr_ptr.q.val() + self.one_ptr.val();
            }
        }
        self.fifo.tail.next = self.tail.q.val();
        self.out_valid.next = self.fifo.out_valid.val();
        self.fifo.out_ready.next = self.out_ready.val();
        self.out_data.next = self.fifo.out_a.val();
        self.keep.count.next = self.fifo.out_b.val();
        self.out_keep.next = self.keep.tkeep.val();
        self.out_last.next = self.fifo.out_c.val().any();

        self.issued.next = self.assemble.out_valid.val();
        self.taken.next = self.fifo.out_valid.val() & self.out_ready.val();
        if self.issued.val() & !self.taken.val() {
            self.in_flight.d.next = self.in_flight.q.val() + self.one_ptr.val();
        }
        if !self.issued.val() & self.taken.val() {
            self.in_flight.d.next = self.in_flight.q.val() - self.one_ptr.val();
        }
        if self.taken.val() & self.fifo.out_c.val().any() {
            self.frame_count.d.next = self.frame_count.q.val() + self.one32.val();
        }
        self.frames.next = self.frame_count.q.val();
    }
}
