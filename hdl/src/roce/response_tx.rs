//! The responder's transmit side: each entry of the responder's response queue — an ACK / NAK,
//! an RDMA READ to answer, or an atomic to execute (or a duplicate one to answer again) —
//! becomes packet descriptors for the transmit arbiter; a READ's payload is read from host
//! memory by DMA, an atomic is executed by the `AtomicUnit` and answered with an ATOMIC
//! Acknowledge carrying the original value. The reference is `rnic_spec::responder`
//! (`ReadReply`, `AtomicReply`).
//!
//! ```text
//!  response queue ─┬─ issuer (look-ahead port, entry by entry): DMA read per READ response packet ─► beat buffer
//!                  └─ sender (queue head): descriptor once its packet's beats are all here, then the beats
//! ```
//!
//! A READ is answered with READ RESPONSE FIRST / MIDDLE / LAST or ONLY packets, one PSN each from
//! the request's PSN on, AETH (the queue entry's syndrome and MSN) on FIRST, LAST and ONLY; a
//! duplicate READ inside an earlier one (`job_mid`, `ReadHistory`) starts with MIDDLE or LAST.
//! Responses are store-and-forward: a packet's descriptor goes to the arbiter only when all of
//! its payload is in the beat buffer (eight path-MTU packets of 4096 bytes), so the arbiter never
//! waits on a host read — a read shared with the requester returns in command order, and
//! waiting on it while holding the transmit port could deadlock both. The issuer walks the
//! queue through `AckQueue`'s look-ahead port ahead of the sender, READ after READ, as far as
//! the buffer has room, so small READs queued back to back cost one host round trip together,
//! not one each (each waited 800 ns before: 1.2 M 64-byte READs/s). It stops at an atomic until
//! the sender has answered it (the atomic unit's read shares the port and must not pass the
//! READs' beats). A host read that fails (its last beat says so) turns that packet into a NAK
//! remote operational error at its PSN and ends the job; every beat read ahead is then thrown
//! away (`S_FLUSH`) and the issuer starts again from the queue head, as after a READ replaced
//! by a duplicate's answer.
//!
//! The queue's head is looked at while it is answered (its path fields go to the arbiter
//! straight from the queue) and taken off (`job_done`) after its last descriptor is handed
//! over; `job_done` is only raised for a head that was valid when its answer started.

use crate::ram_fifo::RamFifo;
use crate::roce::atomic::AtomicUnit;
use rnic_spec::regs::QP_SLOT_BITS;
use crate::roce::ack_queue::{ACK_ADDR, ACK_PTR};
use crate::roce::tx_header::LEN_BITS;
use crate::stream::c;
use rnic_spec::responder::{OP_ACK, OP_ATOMIC_ACK, OP_READ_RESPONSE_FIRST, OP_READ_RESPONSE_LAST, OP_READ_RESPONSE_MIDDLE, OP_READ_RESPONSE_ONLY};
use rust_hdl::prelude::*;

const S_IDLE: u64 = 0;
const S_DESC: u64 = 1;
const S_DATA: u64 = 2;
/// After a failed host read: the job's beats still coming are thrown away.
const S_FLUSH: u64 = 3;
/// An atomic job in the atomic unit.
const S_ATOMIC: u64 = 4;

/// The issuer: asking for the entry at its pointer, looking at it (a cycle later), issuing
/// its READ's reads.
const I_ASK: u64 = 0;
const I_LOOK: u64 = 1;
const I_READ: u64 = 2;

/// Response queue entry kinds (`job_kind`).
pub const JOB_ACK: u64 = 0;
pub const JOB_READ: u64 = 1;
pub const JOB_ATOMIC: u64 = 2;
/// A duplicate atomic request: answered from the saved result.
pub const JOB_ATOMIC_DUP: u64 = 3;
/// Beat buffer: 512 beats of 64 bytes, eight 4096-byte packets — enough reads in flight to
/// cover the host's read latency (800 ns) at the link's rate (two packets reached half of it).
const BUF_ADDR: usize = 9;
const BUF_PTR: usize = BUF_ADDR + 1;
const BUF_BEATS: u64 = 1 << BUF_ADDR;

crate::hdl_block! {
    pub struct ResponseTx {
        pub clock: Signal<In, Clock>,
        /// The response queue's head (`kind`, `JOB_*`): an ACK / NAK (`syndrome`, `psn`,
        /// `msn`), a READ of `len` bytes from `va` at path MTU 2^`pmtu`, or an atomic at `va`
        /// (CmpSwap with `cas`, else FetchAdd; operands `value`, `compare`) for QP slot `qp`.
        pub job_valid: Signal<In, Bit>,
        pub job_done: Signal<Out, Bit>,
        pub job_kind: Signal<In, Bits<2>>,
        pub job_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub job_cas: Signal<In, Bit>,
        pub job_value: Signal<In, Bits<64>>,
        pub job_compare: Signal<In, Bits<64>>,
        pub job_syndrome: Signal<In, Bits<8>>,
        pub job_psn: Signal<In, Bits<24>>,
        pub job_msn: Signal<In, Bits<24>>,
        pub job_va: Signal<In, Bits<64>>,
        pub job_len: Signal<In, Bits<32>>,
        pub job_pmtu: Signal<In, Bits<4>>,
        /// A READ that goes on from the middle of an earlier one: no FIRST / ONLY.
        pub job_mid: Signal<In, Bit>,
        /// A READ's `ReadHistory` entry and generation (`job_kept`), and the generations of
        /// the head's QP's entries (`check_gens`, as they were the cycle before): a READ
        /// whose entry's generation moved on was replaced by a duplicate's answer.
        pub job_kept: Signal<In, Bit>,
        pub job_slot: Signal<In, Bits<3>>,
        pub job_gen: Signal<In, Bits<2>>,
        pub check_gens: Signal<In, Bits<16>>,
        /// The queue's pointers (entries before `q_head` have left; `q_tail` is the next
        /// free) and its look-ahead port: the entry at address `ahead_at`'s READ fields, kind and
        /// release, a cycle later.
        pub q_head: Signal<In, Bits<ACK_PTR>>,
        pub q_tail: Signal<In, Bits<ACK_PTR>>,
        pub ahead_at: Signal<Out, Bits<ACK_ADDR>>,
        pub ahead_va: Signal<In, Bits<64>>,
        pub ahead_len: Signal<In, Bits<32>>,
        pub ahead_pmtu: Signal<In, Bits<4>>,
        pub ahead_kind: Signal<In, Bits<2>>,
        pub ahead_released: Signal<In, Bit>,
        /// Descriptors for the transmit arbiter (the path comes from the queue head).
        pub d_valid: Signal<Out, Bit>,
        pub d_ready: Signal<In, Bit>,
        pub d_opcode: Signal<Out, Bits<8>>,
        pub d_psn: Signal<Out, Bits<24>>,
        pub d_syndrome: Signal<Out, Bits<8>>,
        pub d_msn: Signal<Out, Bits<24>>,
        pub d_payload_len: Signal<Out, Bits<LEN_BITS>>,
        /// An ATOMIC Acknowledge's original value (AtomicAckETH).
        pub d_atomic: Signal<Out, Bits<64>>,
        /// Payload beats of the descriptor handed over.
        pub pl_valid: Signal<Out, Bit>,
        pub pl_ready: Signal<In, Bit>,
        pub pl_data: Signal<Out, Bits<512>>,
        /// DMA reads (`DmaRead` commands; the beats come back in command order).
        pub rd_valid: Signal<Out, Bit>,
        pub rd_ready: Signal<In, Bit>,
        pub rd_addr: Signal<Out, Bits<64>>,
        pub rd_len: Signal<Out, Bits<16>>,
        pub rdd_valid: Signal<In, Bit>,
        pub rdd_ready: Signal<Out, Bit>,
        pub rdd_data: Signal<In, Bits<512>>,
        pub rdd_error: Signal<In, Bit>,
        /// The atomic unit's writes (a `DmaWrite` share).
        pub wr_valid: Signal<Out, Bit>,
        pub wr_ready: Signal<In, Bit>,
        pub wr_addr: Signal<Out, Bits<64>>,
        pub wr_len: Signal<Out, Bits<16>>,
        pub wd_valid: Signal<Out, Bit>,
        pub wd_ready: Signal<In, Bit>,
        pub wd_data: Signal<Out, Bits<512>>,
        pub wr_done: Signal<In, Bit>,
        /// A QP commit: the atomic unit forgets the QP's saved results.
        pub qp_commit_valid: Signal<In, Bit>,
        pub qp_commit: Signal<In, Bits<QP_SLOT_BITS>>,
        /// READ responses sent, and host reads for them (or for atomics) that failed (answered
        /// with a NAK); atomics executed, duplicates answered again, duplicates not answered.
        pub responses: Signal<Out, Bits<32>>,
        pub read_errors: Signal<Out, Bits<32>>,
        pub atomics: Signal<Out, Bits<32>>,
        pub atomic_replays: Signal<Out, Bits<32>>,
        pub atomic_unanswered: Signal<Out, Bits<32>>,
        /// READ answers replaced (stopped at a packet boundary, or before their first).
        pub reads_replaced: Signal<Out, Bits<32>>,

        atomic: AtomicUnit,
        n_replaced: DFF<Bits<32>>,
        /// The job in hand is a READ with a `ReadHistory` entry and generation (latched: the
        /// check must not depend on the queue head, whose pop depends on it).
        j_kept: DFF<Bit>,
        j_slot: DFF<Bits<3>>,
        j_gen: DFF<Bits<2>>,
        /// The job in hand is a READ a duplicate replaced: it ends before its next packet.
        /// (A sub-block fed by registers: a local shared by `d_valid` and the statement
        /// reading `d_ready` would make Verilator see a loop.)
        replaced: GenerationCheck,
        j_atomic: DFF<Bit>,
        j_orig: DFF<Bits<64>>,
        /// A new atomic's 8-byte read (at the head's `job_va`) is still to be issued.
        a_rd: DFF<Bit>,
        eight16: Constant<Bits<16>> = c::<16>(8),
        at_skip: Signal<Local, Bit>,
        in_atomic: Signal<Local, Bit>,
        kind_ack: Constant<Bits<2>> = c::<2>(JOB_ACK),
        kind_read: Constant<Bits<2>> = c::<2>(JOB_READ),
        kind_dup: Constant<Bits<2>> = c::<2>(JOB_ATOMIC_DUP),
        kind_atomic: Constant<Bits<2>> = c::<2>(JOB_ATOMIC),
        op_atomic_ack: Constant<Bits<8>> = c::<8>(OP_ATOMIC_ACK as u64),
        s_atomic: Constant<Bits<3>> = c::<3>(S_ATOMIC),

        beat_buf: RamFifo<BUF_PTR, BUF_ADDR, 512, 1, 1>,
        /// The issuer's next packet and the sender's packet.
        i_size: PacketSize,
        s_size: PacketSize,
        state: DFF<Bits<3>>,
        /// The job in hand: an acknowledge (not a READ), its AETH, path MTU.
        j_ack: DFF<Bit>,
        j_syn: DFF<Bits<8>>,
        j_msn: DFF<Bits<24>>,
        j_pmtu: DFF<Bits<4>>,
        /// The atomic's host read failed: its answer is a NAK (remote operational error).
        j_err: DFF<Bit>,
        /// A READ's beat came back failed (the first since the last flush), and its place in
        /// the buffer: the packet holding it is answered by a NAK.
        e_pending: DFF<Bit>,
        e_at: DFF<Bits<BUF_PTR>>,
        pkt_err: BeatError,
        /// Sender: bytes left from its packet on, the packet's PSN, first packet, beats to go.
        s_left: DFF<Bits<32>>,
        s_psn: DFF<Bits<24>>,
        s_first: DFF<Bit>,
        s_cnt: DFF<Bits<BUF_PTR>>,
        /// Issuer: its queue entry and state, reads still to issue, bytes left, next address,
        /// the READ's path MTU; the buffer's reservation pointer and its write pointer.
        i_at: DFF<Bits<ACK_PTR>>,
        i_state: DFF<Bits<2>>,
        i_active: DFF<Bit>,
        i_left: DFF<Bits<32>>,
        i_addr: DFF<Bits<64>>,
        i_pmtu: DFF<Bits<4>>,
        /// The issuer's entry has left the queue (the sender answered it first: an ACK).
        i_behind: Signal<Local, Bit>,
        /// The issuer takes up the READ (or steps past the ACK) it looks at.
        i_take: Signal<Local, Bit>,
        i_ask: Constant<Bits<2>> = c::<2>(I_ASK),
        i_look: Constant<Bits<2>> = c::<2>(I_LOOK),
        i_read: Constant<Bits<2>> = c::<2>(I_READ),
        one_at: Constant<Bits<ACK_PTR>> = c::<ACK_PTR>(1),
        resv: DFF<Bits<BUF_PTR>>,
        tail: DFF<Bits<BUF_PTR>>,
        n_responses: DFF<Bits<32>>,
        n_errors: DFF<Bits<32>>,

        pmtu64: Signal<Local, Bits<64>>,
        handed: Signal<Local, Bit>,
        beat_out: Signal<Local, Bit>,
        packet_end: Signal<Local, Bit>,
        err_end: Signal<Local, Bit>,
        issue: Signal<Local, Bit>,
        s_idle: Constant<Bits<3>> = c::<3>(S_IDLE),
        s_desc: Constant<Bits<3>> = c::<3>(S_DESC),
        s_data: Constant<Bits<3>> = c::<3>(S_DATA),
        s_flush: Constant<Bits<3>> = c::<3>(S_FLUSH),
        syn_operational: Constant<Bits<8>> = c::<8>(rnic_spec::responder::aeth::NAK_REMOTE_OPERATIONAL as u64),
        op_ack: Constant<Bits<8>> = c::<8>(OP_ACK as u64),
        op_first: Constant<Bits<8>> = c::<8>(OP_READ_RESPONSE_FIRST as u64),
        op_middle: Constant<Bits<8>> = c::<8>(OP_READ_RESPONSE_MIDDLE as u64),
        op_last: Constant<Bits<8>> = c::<8>(OP_READ_RESPONSE_LAST as u64),
        op_only: Constant<Bits<8>> = c::<8>(OP_READ_RESPONSE_ONLY as u64),
        buf_beats: Constant<Bits<BUF_PTR>> = c::<BUF_PTR>(BUF_BEATS),
        zero_ptr: Constant<Bits<BUF_PTR>> = c::<BUF_PTR>(0),
        zero_len: Constant<Bits<LEN_BITS>> = c::<LEN_BITS>(0),
        zero32: Constant<Bits<32>> = c::<32>(0),
        one1: Constant<Bits<1>> = c::<1>(1),
        one24: Constant<Bits<24>> = c::<24>(1),
        one32: Constant<Bits<32>> = c::<32>(1),
        one64: Constant<Bits<64>> = c::<64>(1),
        one_ptr: Constant<Bits<BUF_PTR>> = c::<BUF_PTR>(1),
    }
}

impl Logic for ResponseTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, j_ack, j_err, j_syn, j_msn, j_pmtu, s_left, s_psn, s_first, s_cnt, i_active, i_left, i_addr, resv, tail, n_responses,
            n_errors, j_atomic, j_orig, a_rd, n_replaced, j_kept, j_slot, j_gen, e_pending, e_at, i_at, i_state, i_pmtu
        );
        self.beat_buf.clock.next = self.clock.val();
        self.pmtu64.next = self.one64.val() << self.i_pmtu.q.val();
        // (Packet sizes come from sub-blocks fed by registers: a local shared by a valid and
        // the statement reading its ready would make Verilator see a loop.)
        self.i_size.left.next = self.i_left.q.val();
        self.i_size.pmtu_log.next = self.i_pmtu.q.val();
        self.s_size.left.next = self.s_left.q.val();
        self.s_size.pmtu_log.next = self.j_pmtu.q.val();

        // The issuer: the queue's entries from the head on, a cycle after each is asked for.
        // An ACK is stepped past, a READ read a packet at a time while the buffer has room for
        // its beats, an atomic waited on until the sender has answered it (its read goes while
        // the issuer is idle: the two share the read port). An entry the sender answered first
        // (an ACK) sends the issuer to the head.
        self.ahead_at.next = self.i_at.q.val().get_bits::<ACK_ADDR>(0);
        self.i_behind.next = (self.q_tail.val() - self.i_at.q.val()) > (self.q_tail.val() - self.q_head.val());
        if (self.i_state.q.val() == self.i_ask.val()) & (self.i_at.q.val() != self.q_tail.val()) {
            self.i_state.d.next = self.i_look.val();
        }
        self.i_take.next = (self.i_state.q.val() == self.i_look.val())
            & self.ahead_released.val()
            & !self.i_behind.val()
            & !self.ahead_kind.val().get_bit(1);
        if self.i_take.val() {
            self.i_at.d.next = self.i_at.q.val() + self.one_at.val();
            self.i_state.d.next = self.i_ask.val();
            if (self.ahead_kind.val() == self.kind_read.val()) & (self.ahead_len.val() != self.zero32.val()) {
                self.i_at.d.next = self.i_at.q.val();
                self.i_state.d.next = self.i_read.val();
                self.i_active.d.next = true;
            }
            self.i_left.d.next = self.ahead_len.val();
            self.i_addr.d.next = self.ahead_va.val();
            self.i_pmtu.d.next = self.ahead_pmtu.val();
        }
        if self.i_behind.val() & (self.i_state.q.val() != self.i_read.val()) {
            self.i_at.d.next = self.q_head.val();
            self.i_state.d.next = self.i_ask.val();
        }
        self.in_atomic.next = self.state.q.val() == self.s_atomic.val();
        self.at_skip.next = self.in_atomic.val() & self.atomic.done.val() & !self.atomic.answer.val() & !self.atomic.error.val();
        self.rd_valid.next = (self.i_active.q.val()
            & (((self.resv.q.val() - self.beat_buf.head.val()) + self.i_size.beats.val()) <= self.buf_beats.val()))
            | self.a_rd.q.val();
        self.rd_addr.next = self.i_addr.q.val();
        self.rd_len.next = self.i_size.chunk.val().get_bits::<16>(0);
        if self.a_rd.q.val() {
            self.rd_addr.next = self.job_va.val();
            self.rd_len.next = self.eight16.val();
        }
        if self.a_rd.q.val() & self.rd_ready.val() {
            self.a_rd.d.next = false;
        }
        self.issue.next = self.i_active.q.val()
            & (((self.resv.q.val() - self.beat_buf.head.val()) + self.i_size.beats.val()) <= self.buf_beats.val())
            & self.rd_ready.val();
        if self.issue.val() {
            self.resv.d.next = self.resv.q.val() + self.i_size.beats.val();
            self.i_left.d.next = self.i_left.q.val() - self.i_size.chunk.val();
            // (Only a packet before the last moves the address on: a full path MTU.)
            self.i_addr.d.next = self.i_addr.q.val() + self.pmtu64.val();
            if self.i_size.last.val() {
                self.i_active.d.next = false;
                self.i_at.d.next = self.i_at.q.val() + self.one_at.val();
                self.i_state.d.next = self.i_ask.val();
            }
        }
        // Every beat coming back has its room reserved (an atomic's goes to the atomic unit).
        self.rdd_ready.next = true;
        self.beat_buf.wr_en.next = self.rdd_valid.val() & !self.in_atomic.val();
        self.beat_buf.wr_addr.next = self.tail.q.val().get_bits::<BUF_ADDR>(0);
        self.beat_buf.wr_a.next = self.rdd_data.val();
        self.beat_buf.wr_b.next = self.one1.val();
        self.beat_buf.wr_c.next = self.one1.val();
        if self.rdd_valid.val() & !self.in_atomic.val() {
            self.tail.d.next = self.tail.q.val() + self.one_ptr.val();
        }
        self.beat_buf.tail.next = self.tail.q.val();
        if self.rdd_valid.val() & self.rdd_error.val() & self.in_atomic.val() {
            self.j_err.d.next = true;
        }
        if self.rdd_valid.val() & self.rdd_error.val() & !self.in_atomic.val() & !self.e_pending.q.val() {
            self.e_pending.d.next = true;
            self.e_at.d.next = self.tail.q.val();
        }
        // (A sub-block fed by registers, as the packet sizes.)
        self.pkt_err.pending.next = self.e_pending.q.val() & !self.j_ack.q.val();
        self.pkt_err.at.next = self.e_at.q.val();
        self.pkt_err.head.next = self.beat_buf.head.val();
        self.pkt_err.beats.next = self.s_size.beats.val();

        // A READ replaced by a duplicate's answer: no further packet of it goes out.
        self.replaced.gens.next = self.check_gens.val();
        self.replaced.slot.next = self.j_slot.q.val();
        self.replaced.gen.next = self.j_gen.q.val();
        self.replaced.kept.next = (self.state.q.val() == self.s_desc.val()) & self.j_kept.q.val() & !self.j_err.q.val() & !self.pkt_err.hit.val();
        if self.replaced.stale.val() {
            self.n_replaced.d.next = self.n_replaced.q.val() + self.one32.val();
        }

        // The sender: a descriptor once its packet's beats are all in the buffer.
        self.d_valid.next = (self.state.q.val() == self.s_desc.val())
            & !self.replaced.stale.val()
            & (self.j_ack.q.val() | self.j_err.q.val() | ((self.tail.q.val() - self.beat_buf.head.val()) >= self.s_size.beats.val()));
        self.d_psn.next = self.s_psn.q.val();
        self.d_syndrome.next = self.j_syn.q.val();
        self.d_msn.next = self.j_msn.q.val();
        self.d_payload_len.next = self.s_size.chunk.val().get_bits::<LEN_BITS>(0);
        self.d_opcode.next = self.op_middle.val();
        if self.s_first.q.val() & self.s_size.last.val() {
            self.d_opcode.next = self.op_only.val();
        }
        if self.s_first.q.val() & !self.s_size.last.val() {
            self.d_opcode.next = self.op_first.val();
        }
        if !self.s_first.q.val() & self.s_size.last.val() {
            self.d_opcode.next = self.op_last.val();
        }
        if self.j_ack.q.val() | self.j_err.q.val() | self.pkt_err.hit.val() {
            self.d_opcode.next = self.op_ack.val();
            self.d_payload_len.next = self.zero_len.val();
        }
        if self.j_ack.q.val() & self.j_atomic.q.val() {
            self.d_opcode.next = self.op_atomic_ack.val();
        }
        self.d_atomic.next = self.j_orig.q.val();
        // (Bytes a failed read returned never go out: the peer is told, its READ fails.)
        if (self.j_err.q.val() | self.pkt_err.hit.val()) & !self.j_ack.q.val() {
            self.d_syndrome.next = self.syn_operational.val();
        }
        self.handed.next = (self.state.q.val() == self.s_desc.val())
            & !self.replaced.stale.val()
            & (self.j_ack.q.val() | self.j_err.q.val() | ((self.tail.q.val() - self.beat_buf.head.val()) >= self.s_size.beats.val()))
            & self.d_ready.val();
        self.pl_valid.next = (self.state.q.val() == self.s_data.val()) & self.beat_buf.out_valid.val();
        self.pl_data.next = self.beat_buf.out_a.val();
        self.beat_buf.out_ready.next =
            ((self.state.q.val() == self.s_data.val()) & self.pl_ready.val()) | (self.state.q.val() == self.s_flush.val());
        self.beat_out.next = (self.state.q.val() == self.s_data.val()) & self.pl_ready.val() & self.beat_buf.out_valid.val();

        self.packet_end.next = false;
        if self.handed.val() {
            self.state.d.next = self.s_data.val();
            self.s_cnt.d.next = self.s_size.beats.val();
            if !self.j_ack.q.val() & !self.j_err.q.val() & !self.pkt_err.hit.val() {
                self.n_responses.d.next = self.n_responses.q.val() + self.one32.val();
            }
            if self.j_ack.q.val() | self.j_err.q.val() | self.pkt_err.hit.val() | (self.s_size.beats.val() == self.zero_ptr.val()) {
                self.packet_end.next = true;
            }
        }
        if self.beat_out.val() {
            self.s_cnt.d.next = self.s_cnt.q.val() - self.one_ptr.val();
            if self.s_cnt.q.val() == self.one_ptr.val() {
                self.packet_end.next = true;
            }
        }
        // After a packet: the job is answered (its last packet, or an acknowledge), or the
        // next packet follows.
        // (A NAK for a failed read ends the job; a read failing while a packet drains does
        // not end that packet's job: the NAK follows.)
        self.err_end.next = self.handed.val() & (self.j_err.q.val() | self.pkt_err.hit.val()) & !self.j_ack.q.val();
        if self.err_end.val() {
            self.n_errors.d.next = self.n_errors.q.val() + self.one32.val();
        }
        self.job_done.next =
            (self.packet_end.val() & (self.j_ack.q.val() | self.err_end.val() | self.s_size.last.val())) | self.at_skip.val() | self.replaced.stale.val();
        if self.packet_end.val() {
            self.state.d.next = self.s_desc.val();
            self.s_left.d.next = self.s_left.q.val() - self.s_size.chunk.val();
            self.s_psn.d.next = self.s_psn.q.val() + self.one24.val();
            self.s_first.d.next = false;
            if self.j_ack.q.val() | self.s_size.last.val() {
                self.state.d.next = self.s_idle.val();
            }
            if self.err_end.val() {
                self.state.d.next = self.s_flush.val();
                self.i_active.d.next = false;
            }
        }
        // (A replaced READ's beats read ahead are thrown away as a failed one's.)
        if self.replaced.stale.val() {
            self.state.d.next = self.s_flush.val();
            self.i_active.d.next = false;
        }
        // Flushing: every beat reserved has come back and left the buffer; the issuer starts
        // again from the queue head (the job after the one that ended).
        if (self.state.q.val() == self.s_flush.val()) & (self.beat_buf.head.val() == self.resv.q.val()) {
            self.state.d.next = self.s_idle.val();
        }
        if self.state.q.val() == self.s_flush.val() {
            self.e_pending.d.next = false;
            self.i_active.d.next = false;
            self.i_at.d.next = self.q_head.val();
            self.i_state.d.next = self.i_ask.val();
        }
        // The atomic unit: a job from the queue head; its end is an ATOMIC Acknowledge, a NAK
        // (the host read failed), or nothing (a duplicate whose result is gone).
        self.atomic.clock.next = self.clock.val();
        self.atomic.qp_commit_valid.next = self.qp_commit_valid.val();
        self.atomic.qp_commit.next = self.qp_commit.val();
        self.atomic.go.next = (self.state.q.val() == self.s_idle.val()) & self.job_valid.val() & self.job_kind.val().get_bit(1);
        self.atomic.go_qp.next = self.job_qp.val();
        self.atomic.go_psn.next = self.job_psn.val();
        self.atomic.go_msn.next = self.job_msn.val();
        self.atomic.go_va.next = self.job_va.val();
        self.atomic.go_cas.next = self.job_cas.val();
        self.atomic.go_value.next = self.job_value.val();
        self.atomic.go_compare.next = self.job_compare.val();
        self.atomic.go_dup.next = self.job_kind.val() == self.kind_dup.val();
        self.atomic.rdd_valid.next = self.rdd_valid.val() & self.in_atomic.val();
        self.atomic.rdd_data.next = self.rdd_data.val().get_bits::<64>(0);
        self.atomic.rdd_error.next = self.rdd_error.val();
        self.wr_valid.next = self.atomic.wr_valid.val();
        self.atomic.wr_ready.next = self.wr_ready.val();
        self.wr_addr.next = self.atomic.wr_addr.val();
        self.wr_len.next = self.atomic.wr_len.val();
        self.wd_valid.next = self.atomic.wd_valid.val();
        self.atomic.wd_ready.next = self.wd_ready.val();
        self.wd_data.next = self.atomic.wd_data.val();
        self.atomic.wr_done.next = self.wr_done.val();
        if self.in_atomic.val() & self.atomic.done.val() {
            self.state.d.next = self.s_desc.val();
            self.j_ack.d.next = self.atomic.answer.val();
            self.j_msn.d.next = self.atomic.msn.val();
            self.j_orig.d.next = self.atomic.orig.val();
            if self.at_skip.val() {
                self.state.d.next = self.s_idle.val();
            }
        }
        if (self.state.q.val() == self.s_idle.val()) & self.job_valid.val() {
            self.state.d.next = self.s_desc.val();
            if self.job_kind.val().get_bit(1) {
                self.state.d.next = self.s_atomic.val();
            }
            self.j_ack.d.next = self.job_kind.val() == self.kind_ack.val();
            self.j_atomic.d.next = self.job_kind.val().get_bit(1);
            self.a_rd.d.next = self.job_kind.val() == self.kind_atomic.val();
            self.j_err.d.next = false;
            self.j_syn.d.next = self.job_syndrome.val();
            self.j_msn.d.next = self.job_msn.val();
            self.j_pmtu.d.next = self.job_pmtu.val();
            self.s_left.d.next = self.job_len.val();
            self.s_psn.d.next = self.job_psn.val();
            self.s_first.d.next = !(self.job_mid.val() & (self.job_kind.val() == self.kind_read.val()));
            self.j_kept.d.next = self.job_kept.val() & (self.job_kind.val() == self.kind_read.val());
            self.j_slot.d.next = self.job_slot.val();
            self.j_gen.d.next = self.job_gen.val();
        }
        self.responses.next = self.n_responses.q.val();
        self.read_errors.next = self.n_errors.q.val();
        self.atomics.next = self.atomic.executed.val();
        self.atomic_replays.next = self.atomic.replayed.val();
        self.atomic_unanswered.next = self.atomic.unanswered.val();
        self.reads_replaced.next = self.n_replaced.q.val();
    }
}

crate::hdl_block! {
    /// A kept READ's generation (`gen` of entry `slot`) against its entry's now (`gens`, two
    /// bits per entry): `stale` when they differ.
    pub struct GenerationCheck {
        pub gens: Signal<In, Bits<16>>,
        pub slot: Signal<In, Bits<3>>,
        pub gen: Signal<In, Bits<2>>,
        pub kept: Signal<In, Bit>,
        pub stale: Signal<Out, Bit>,
        now: Signal<Local, Bits<2>>,
        slot_no: [Constant<Bits<3>>; 8] = crate::stream::numbers::<3, 8>(),
        gen_at: [Constant<Bits<4>>; 8] = std::array::from_fn(|i| c::<4>(2 * i as u64)),
    }
}

impl Logic for GenerationCheck {
    #[hdl_gen]
    fn update(&mut self) {
        self.now.next = self.gens.val().get_bits::<2>(0);
        for i in 0..8 {
            if self.slot.val() == self.slot_no[i].val() {
                self.now.next = self.gens.val().get_bits::<2>(self.gen_at[i].val().index());
            }
        }
        self.stale.next = self.kept.val() & (self.now.val() != self.gen.val());
    }
}

crate::hdl_block! {
    /// Whether the failed beat (`pending`, at buffer place `at`) is one of the sender's packet's
    /// `beats` from the buffer's `head` on.
    pub struct BeatError {
        pub pending: Signal<In, Bit>,
        pub at: Signal<In, Bits<BUF_PTR>>,
        pub head: Signal<In, Bits<BUF_PTR>>,
        pub beats: Signal<In, Bits<BUF_PTR>>,
        pub hit: Signal<Out, Bit>,
    }
}

impl Logic for BeatError {
    #[hdl_gen]
    fn update(&mut self) {
        self.hit.next = self.pending.val() & ((self.at.val() - self.head.val()) < self.beats.val());
    }
}

crate::hdl_block! {
    /// A response packet's size: a full path MTU, or the bytes left when fewer (`last`).
    pub struct PacketSize {
        pub left: Signal<In, Bits<32>>,
        pub pmtu_log: Signal<In, Bits<4>>,
        pub chunk: Signal<Out, Bits<32>>,
        pub beats: Signal<Out, Bits<BUF_PTR>>,
        pub last: Signal<Out, Bit>,
        pmtu: Signal<Local, Bits<32>>,
        size: Signal<Local, Bits<32>>,
        round: Signal<Local, Bits<32>>,
        one32: Constant<Bits<32>> = c::<32>(1),
        beat_round: Constant<Bits<32>> = c::<32>(63),
    }
}

impl Logic for PacketSize {
    #[hdl_gen]
    fn update(&mut self) {
        self.pmtu.next = self.one32.val() << self.pmtu_log.val();
        self.last.next = self.left.val() <= self.pmtu.val();
        self.size.next = self.pmtu.val();
        if self.left.val() <= self.pmtu.val() {
            self.size.next = self.left.val();
        }
        self.chunk.next = self.size.val();
        // At most 4096 bytes: 64 beats.
        self.round.next = (self.size.val() + self.beat_round.val()) >> 6;
        self.beats.next = self.round.val().get_bits::<BUF_PTR>(0);
    }
}
