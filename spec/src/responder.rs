//! The RC responder's reference model for RDMA WRITE, SEND and READ (IBTA Vol 1 §9.7.5, §9.7.4.1,
//! §10.8.3): what an arriving request packet does to the responder's state and memory, what it
//! answers, and which receive completion it produces.
//!
//! Checks, the first failing one decides: a QP that does not exist, is not in RTR / RTS, or went
//! to error drops the packet silently; so does a packet whose source IP address or P_Key is not
//! the QP's connected peer's (counted `bad_source`; a P_Key matches in its low 15 bits when one
//! of the two is a full member, IBTA §10.9.3); opcodes other than SEND, RDMA WRITE, RDMA READ
//! request and the two atomics are set aside; RDMA READ requests and atomics follow their own
//! rules (`RspState::read`, `RspState::atomic`); a PSN behind the expected PSN (ePSN) is a duplicate — nothing is written again,
//! and an ACK answers it if it asks for one; a PSN ahead is a sequence error — one NAK carrying
//! the ePSN until the ePSN arrives; FIRST / ONLY while a message is in progress, MIDDLE / LAST
//! without one or of the other operation, and payload lengths other than the path MTU (FIRST,
//! MIDDLE), 1 … PMTU (SEND LAST), 0 … PMTU (SEND ONLY) or the rest of the RETH length (WRITE
//! LAST; WRITE ONLY too, which must also fit the path MTU) are invalid requests (NAK); on WRITE
//! FIRST / ONLY the rkey must allow REMOTE_WRITE of the whole RETH range in the QP's protection
//! domain (else NAK remote access error). An invalid request or a remote access error puts the
//! QP in error (class C, IBTA §9.9.3.1.3, as rxe does). Every later packet of a message is
//! checked again against the key that admitted the message (the WRITE's rkey, the receive
//! buffer's lkey) over the bytes it carries, so a region deregistered while a message is in
//! progress gets no byte more (the RTL checks again only when a region changed since the
//! message's last check: the same verdicts).
//!
//! A SEND's FIRST / ONLY packet and a WRITE with immediate's LAST / ONLY packet consume the next
//! receive WQE; with none posted the packet is answered by an RNR NAK and placed nowhere (the
//! requester sends it again after the RNR timer); the packets behind it are then dropped
//! without a sequence NAK of their own until it comes again. This check comes right after the opcode order, before the
//! lengths and the rkey. A SEND is placed into the WQE's buffer, whose lkey must
//! allow LOCAL_WRITE of the whole buffer in the QP's PD (else NAK remote operational error, the
//! WQE completes with a local protection error) and which must hold the whole message (else NAK
//! invalid request, the WQE completes with a local length error); either error puts the QP in
//! error (class A / C, IBTA §9.9.3.1.3). A packet that passes is placed at the message's next
//! address, the ePSN advances, and a packet with AckReq is acknowledged with the message
//! sequence number (MSN, the count of finished messages). The message's last packet completes
//! its receive WQE with the byte count and the immediate data.

use crate::desc::{CqOp, CqStatus, RecvWqe};
use crate::mr::{self, AccessError, MemoryRegion};
use crate::qp::{PortAddress, QpContext, RemoteIp};
use crate::regs::qp_state;
use crate::wire::ib::{Aeth, Ext, Reth};
use crate::wire::packet::{IpHeader, RocePacket};
use crate::wire::psn;
use crate::wire::tx::{AtomicArgs, TxDescriptor};

pub const OP_SEND_FIRST: u8 = 0x00;
pub const OP_SEND_MIDDLE: u8 = 0x01;
pub const OP_SEND_LAST: u8 = 0x02;
pub const OP_SEND_LAST_IMM: u8 = 0x03;
pub const OP_SEND_ONLY: u8 = 0x04;
pub const OP_SEND_ONLY_IMM: u8 = 0x05;
pub const OP_WRITE_FIRST: u8 = 0x06;
pub const OP_WRITE_MIDDLE: u8 = 0x07;
pub const OP_WRITE_LAST: u8 = 0x08;
pub const OP_WRITE_LAST_IMM: u8 = 0x09;
pub const OP_WRITE_ONLY: u8 = 0x0A;
pub const OP_WRITE_ONLY_IMM: u8 = 0x0B;
pub const OP_READ_REQUEST: u8 = 0x0C;
pub const OP_READ_RESPONSE_FIRST: u8 = 0x0D;
pub const OP_READ_RESPONSE_MIDDLE: u8 = 0x0E;
pub const OP_READ_RESPONSE_LAST: u8 = 0x0F;
pub const OP_READ_RESPONSE_ONLY: u8 = 0x10;
pub const OP_ACK: u8 = 0x11;
pub const OP_ATOMIC_ACK: u8 = 0x12;
pub const OP_CMP_SWAP: u8 = 0x13;
pub const OP_FETCH_ADD: u8 = 0x14;
/// Atomic results a responder keeps per QP for duplicates: as many as the READ / atomic
/// requests a requester may have outstanding (`qp::RD_SLOTS`).
pub const SAVED_ATOMICS: usize = crate::qp::RD_SLOTS as usize;
/// The longest message, and so the longest RDMA READ: 2^31 bytes (IBTA Vol 1 §9.4.4).
pub const MAX_MESSAGE: u32 = 1 << 31;

/// AETH syndromes (IBTA Vol 1 §9.3.5, table 44): bits 6:5 say ACK (00), RNR NAK (01) or NAK
/// (11); the low five bits are the credit count, the RNR timer or the NAK code.
pub mod aeth {
    /// ACK with the credit count "invalid": this responder does no end-to-end flow control.
    pub const ACK: u8 = 0x1F;
    /// RNR NAK with timer code 1 (0.01 ms, the shortest; the card has no min_rnr_timer yet).
    pub const RNR_NAK: u8 = 0x21;
    pub const NAK_PSN_SEQUENCE: u8 = 0x60;
    pub const NAK_INVALID_REQUEST: u8 = 0x61;
    pub const NAK_REMOTE_ACCESS: u8 = 0x62;
    pub const NAK_REMOTE_OPERATIONAL: u8 = 0x63;

    pub fn is_nak(syndrome: u8) -> bool {
        syndrome & 0x60 == 0x60
    }
}

/// The responder's state of one QP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RspState {
    pub epsn: u32,
    pub msn: u32,
    /// A multi-packet message is in progress at `va`, `left` bytes of room to go.
    pub in_msg: bool,
    /// The message in progress is a SEND (else an RDMA WRITE).
    pub send: bool,
    /// A sequence-error NAK went out and the ePSN has not arrived since.
    pub nak_sent: bool,
    pub va: u64,
    pub left: u32,
    /// Bytes of the message in progress placed so far.
    pub count: u32,
    /// Receive WQEs consumed since the QP's commit: the next one's index (modulo 2^16).
    pub rq_ci: u16,
    /// The key that admitted the message in progress: the WRITE's rkey, the SEND's receive
    /// buffer's lkey.
    pub key: u32,
    /// A receive WQE failed, or a request was invalid or broke its rkey: the QP is in error
    /// and drops what arrives.
    pub error: bool,
    /// The last `SAVED_ATOMICS` atomics' results, the oldest replaced first (`saved_next`).
    pub saved: [Option<SavedAtomic>; SAVED_ATOMICS],
    pub saved_next: usize,
    /// The last `SAVED_ATOMICS` new READs' PSNs, the oldest replaced first (`reads_next`): a
    /// duplicate READ inside one of them is answered from the middle.
    pub reads: [Option<SavedRead>; SAVED_ATOMICS],
    pub reads_next: usize,
    /// The QP's last answer is one to the kept READ in this slot of `reads` (None: another
    /// answer, or one to no kept READ): only a duplicate of that READ may replace answers.
    pub last_read: Option<usize>,
}

/// A READ the responder executed: its first PSN and how many PSNs its responses take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SavedRead {
    pub psn: u32,
    pub packets: u32,
}

/// An executed atomic's result, kept for a duplicate of its request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SavedAtomic {
    pub psn: u32,
    pub msn: u32,
    pub orig: u64,
}

/// An atomic operation on eight bytes of memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    CmpSwap { compare: u64, swap: u64 },
    FetchAdd { add: u64 },
}

impl AtomicOp {
    /// The value memory holds after the operation on `old`.
    pub fn apply(&self, old: u64) -> u64 {
        match *self {
            AtomicOp::CmpSwap { compare, swap } => {
                if old == compare {
                    swap
                } else {
                    old
                }
            }
            AtomicOp::FetchAdd { add } => old.wrapping_add(add),
        }
    }
}

/// An atomic the responder answers with an ATOMIC Acknowledge (PSN `psn`, AETH ACK with MSN
/// `msn`): a new one executes `op` on the eight bytes at `va` (`orig` is `None`: the caller
/// executes it on its memory and hands the original value to [`RspState::executed`]); a
/// duplicate is answered with the saved original value and executes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtomicReply {
    pub psn: u32,
    pub msn: u32,
    pub va: u64,
    pub op: AtomicOp,
    pub orig: Option<u64>,
}

/// What a packet did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The payload was written: `len` bytes at `addr`.
    Placed { addr: u64, len: u32 },
    /// An RDMA READ request was taken: its responses are [`Effect::read`].
    Read,
    /// An atomic was taken: [`Effect::atomic`] executes it.
    Atomic,
    Duplicate,
    SequenceError,
    InvalidRequest,
    RemoteAccess(AccessError),
    /// No receive WQE was posted for a SEND or a WRITE with immediate.
    ReceiverNotReady,
    /// The receive WQE's buffer refused the SEND (its completion carries the status).
    ReceiveError(CqStatus),
    BadQp,
    /// The source IP address or the P_Key is not the QP's peer's: dropped silently.
    BadSource,
    SetAside,
}

/// An ACK or NAK the responder sends (to the QP's path and remote QPN).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Response {
    pub syndrome: u8,
    pub psn: u32,
    pub msn: u32,
}

/// A receive WQE completed (into the QP's receive CQ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecvCompletion {
    /// The WQE's index in the receive queue (modulo 2^16 from 0 at the QP's commit).
    pub wqe_index: u16,
    pub status: CqStatus,
    pub op: CqOp,
    /// Bytes of the message (for a WRITE with immediate, the RDMA WRITE's length); 0 on error.
    pub byte_len: u32,
    pub imm: Option<u32>,
}

/// Everything one packet does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effect {
    pub outcome: Outcome,
    pub response: Option<Response>,
    pub completion: Option<RecvCompletion>,
    /// An RDMA READ to answer (a new one, or a duplicate executed again).
    pub read: Option<ReadReply>,
    /// An atomic to execute and answer, or a duplicate to answer again.
    pub atomic: Option<AtomicReply>,
}

/// An RDMA READ the responder answers: `len` bytes from `va`, in READ RESPONSE packets from
/// PSN `psn` on, whose AETHs carry MSN `msn` (IBTA Vol 1 §9.7.4.1.4). `mid`: a duplicate READ
/// whose PSN lies inside an earlier READ, after its first PSN — a requester asking again for
/// the rest of a READ (VA and length moved on): its answer goes on from the middle, MIDDLE
/// ... LAST (or LAST alone), as the original stream would have (Linux rxe answers so, and its
/// requester refuses a FIRST there). `slot`: the kept READ (`RspState::reads`) the answer
/// belongs to — a new READ's, or the one a duplicate lies inside when the QP's last answer is
/// to that READ (none for a duplicate outside them all, or behind another answer). A later
/// answer with the same slot *replaces* this one: it may stop at any packet boundary, before
/// its first packet too (IBTA lets a responder give up an answer in progress for the
/// duplicate's; as the duplicate's answer follows it directly, the requester sees the PSNs in
/// order either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadReply {
    pub psn: u32,
    pub va: u64,
    pub len: u32,
    pub msn: u32,
    pub mid: bool,
    pub slot: Option<usize>,
}

/// One READ RESPONSE packet: opcode, PSN, AETH (FIRST, LAST and ONLY carry one), and the bytes
/// it carries (`len` from `va`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadResponse {
    pub opcode: u8,
    pub psn: u32,
    pub aeth: Option<Aeth>,
    pub va: u64,
    pub len: u32,
}

impl ReadReply {
    /// PSNs a READ of `len` bytes takes at a path MTU of 2^`pmtu_log2`: one per response
    /// packet, one for length 0.
    pub fn packets(len: u32, pmtu_log2: u8) -> u32 {
        len.div_ceil(1 << pmtu_log2).max(1)
    }

    /// The response packets, in order: every one a full path MTU but the last.
    pub fn responses(&self, pmtu_log2: u8) -> Vec<ReadResponse> {
        let n = Self::packets(self.len, pmtu_log2);
        let pmtu = 1u32 << pmtu_log2;
        (0..n)
            .map(|k| {
                let (first, last) = (k == 0 && !self.mid, k + 1 == n);
                let opcode = match (first, last) {
                    (true, true) => OP_READ_RESPONSE_ONLY,
                    (true, false) => OP_READ_RESPONSE_FIRST,
                    (false, true) => OP_READ_RESPONSE_LAST,
                    (false, false) => OP_READ_RESPONSE_MIDDLE,
                };
                let aeth = (first || last).then_some(Aeth { syndrome: aeth::ACK, msn: self.msn });
                let off = k * pmtu;
                ReadResponse { opcode, psn: psn::add(self.psn, k), aeth, va: self.va.wrapping_add(off as u64), len: pmtu.min(self.len - off) }
            })
            .collect()
    }
}

impl ReadResponse {
    /// The packet for QP `ctx` of port `port` (its payload travels beside it).
    pub fn descriptor(&self, port: &PortAddress, ctx: &QpContext) -> TxDescriptor {
        let ack = Response { syndrome: aeth::ACK, psn: self.psn, msn: 0 }.descriptor(port, ctx);
        TxDescriptor { opcode: self.opcode, aeth: self.aeth.unwrap_or_default(), payload_len: self.len as u16, ..ack }
    }
}

impl RspState {
    pub fn new(epsn: u32) -> RspState {
        RspState { epsn, ..Default::default() }
    }

    /// One arriving packet for a QP with context `ctx` (`None`: no such QP), memory regions
    /// `mrs`, and the receive WQEs posted to the QP since its commit, oldest first (`rq`).
    pub fn receive(&mut self, ctx: Option<&QpContext>, mrs: &[Option<MemoryRegion>], rq: &[RecvWqe], pkt: &RocePacket) -> Effect {
        let e = self.admit(ctx, mrs, rq, pkt);
        // (A duplicate atomic is queued for its answer even when its result is gone.)
        let answered = e.response.is_some() || e.atomic.is_some() || (e.outcome == Outcome::Duplicate && matches!(pkt.bth.opcode, OP_CMP_SWAP | OP_FETCH_ADD));
        if let Some(r) = e.read {
            self.last_read = r.slot;
        } else if answered {
            self.last_read = None;
        }
        e
    }

    fn admit(&mut self, ctx: Option<&QpContext>, mrs: &[Option<MemoryRegion>], rq: &[RecvWqe], pkt: &RocePacket) -> Effect {
        let effect = |outcome, response, completion| Effect { outcome, response, completion, read: None, atomic: None };
        let Some(ctx) = ctx.filter(|c| matches!(c.state, qp_state::RTR | qp_state::RTS) && !self.error) else {
            return effect(Outcome::BadQp, None, None);
        };
        if !from_peer(ctx, pkt) {
            return effect(Outcome::BadSource, None, None);
        }
        let op = pkt.bth.opcode;
        let is_send = op <= OP_SEND_ONLY_IMM;
        let is_read = op == OP_READ_REQUEST;
        let is_atomic = op == OP_CMP_SWAP || op == OP_FETCH_ADD;
        if !is_send && !is_read && !is_atomic && !(OP_WRITE_FIRST..=OP_WRITE_ONLY_IMM).contains(&op) {
            return effect(Outcome::SetAside, None, None);
        }
        let answer = |syndrome, psn, msn| Some(Response { syndrome, psn, msn });
        let p = pkt.bth.psn;
        let diff = psn::diff(p, self.epsn);
        if is_read && diff <= 0 {
            return self.read(ctx, mrs, pkt, diff < 0);
        }
        if is_atomic && diff <= 0 {
            return self.atomic(ctx, mrs, pkt, diff < 0);
        }
        if diff < 0 {
            return effect(Outcome::Duplicate, answer(aeth::ACK, p, self.msn).filter(|_| pkt.bth.ack_req), None);
        }
        if diff > 0 {
            let first_nak = !self.nak_sent;
            self.nak_sent = true;
            return effect(Outcome::SequenceError, answer(aeth::NAK_PSN_SEQUENCE, self.epsn, self.msn).filter(|_| first_nak), None);
        }
        // Both operations lay out FIRST, MIDDLE, LAST, LAST_IMM, ONLY, ONLY_IMM from their base.
        let k = op - if is_send { OP_SEND_FIRST } else { OP_WRITE_FIRST };
        let (first, last, imm) = (k == 0 || k >= 4, k >= 2, k == 3 || k == 5);
        let invalid = |s: &mut RspState| {
            s.error = true;
            effect(Outcome::InvalidRequest, answer(aeth::NAK_INVALID_REQUEST, p, s.msn), None)
        };
        if first == self.in_msg || (!first && self.send != is_send) {
            return invalid(self);
        }
        let needs_wqe = if is_send { first } else { imm };
        // Resources before lengths and keys, as IBTA's responder order (and rxe) has them.
        let wqe = rq.get(self.rq_ci as usize).copied();
        if needs_wqe && wqe.is_none() {
            // Later packets wait for this one's resend without a sequence NAK of their own.
            self.nak_sent = true;
            return effect(Outcome::ReceiverNotReady, answer(aeth::RNR_NAK, p, self.msn), None);
        }
        let reth = pkt.ext.iter().find_map(|e| if let Ext::Reth(r) = e { Some(*r) } else { None }).unwrap_or(Reth::default());
        let len = pkt.payload.len() as u32;
        let pmtu = 1u32 << ctx.pmtu_log2;
        let len_ok = match (is_send, first, last) {
            (true, _, false) => len == pmtu,
            (true, false, true) => (1..=pmtu).contains(&len),
            (true, true, true) => len <= pmtu,
            (false, true, true) => len == reth.dma_len && len <= pmtu,
            (false, true, false) => len == pmtu && reth.dma_len > pmtu,
            (false, false, false) => len == pmtu && self.left > pmtu,
            (false, false, true) => len == self.left && len != 0,
        };
        if !len_ok {
            return invalid(self);
        }
        let access_error = |s: &mut RspState, e| {
            s.error = true;
            effect(Outcome::RemoteAccess(e), answer(aeth::NAK_REMOTE_ACCESS, p, s.msn), None)
        };
        if first && !is_send {
            if let Err(e) = mr::check(mrs, reth.rkey, ctx.pd, reth.va, reth.dma_len, mr::access::REMOTE_WRITE) {
                return access_error(self, e);
            }
        }
        let fail = |s: &mut RspState, status, syndrome| {
            s.error = true;
            let c = RecvCompletion { wqe_index: s.rq_ci.wrapping_sub(1), status, op: CqOp::Recv, byte_len: 0, imm: None };
            effect(Outcome::ReceiveError(status), answer(syndrome, p, s.msn), Some(c))
        };
        if first {
            self.count = 0;
            self.send = is_send;
            (self.va, self.left, self.key) = (reth.va, reth.dma_len, reth.rkey);
        }
        if is_send && first {
            let wqe = wqe.expect("checked above");
            self.rq_ci = self.rq_ci.wrapping_add(1);
            if mr::check(mrs, wqe.lkey, ctx.pd, wqe.addr, wqe.length, mr::access::LOCAL_WRITE).is_err() {
                return fail(self, CqStatus::LocalProtection, aeth::NAK_REMOTE_OPERATIONAL);
            }
            (self.va, self.left, self.key) = (wqe.addr, wqe.length, wqe.lkey);
        }
        if is_send && len > self.left {
            return fail(self, CqStatus::LocalLength, aeth::NAK_INVALID_REQUEST);
        }
        // A later packet: its bytes under the key that admitted the message, again.
        if !first {
            let need = if is_send { mr::access::LOCAL_WRITE } else { mr::access::REMOTE_WRITE };
            if let Err(e) = mr::check(mrs, self.key, ctx.pd, self.va, len, need) {
                if is_send {
                    return fail(self, CqStatus::LocalProtection, aeth::NAK_REMOTE_OPERATIONAL);
                }
                return access_error(self, e);
            }
        }
        let addr = self.va;
        self.epsn = psn::add(self.epsn, 1);
        self.nak_sent = false;
        self.in_msg = !last;
        self.va = self.va.wrapping_add(len as u64);
        self.left -= len;
        self.count += len;
        let mut completion = None;
        if last {
            self.msn = psn::add(self.msn, 1);
            if !is_send && imm {
                self.rq_ci = self.rq_ci.wrapping_add(1);
            }
            if is_send || imm {
                completion = Some(RecvCompletion {
                    wqe_index: self.rq_ci.wrapping_sub(1),
                    status: CqStatus::Success,
                    op: if is_send { CqOp::Recv } else { CqOp::RecvRdmaImm },
                    byte_len: self.count,
                    imm: imm.then(|| pkt.ext.iter().find_map(|e| if let Ext::ImmDt(v) = e { Some(*v) } else { None }).unwrap_or(0)),
                });
            }
        }
        let ack = answer(aeth::ACK, p, self.msn).filter(|_| pkt.bth.ack_req);
        effect(Outcome::Placed { addr, len }, ack, completion)
    }
}

impl RspState {
    /// An RDMA READ request at the ePSN, or behind it (`duplicate`: executed again from its
    /// PSN, the state unchanged, IBTA Vol 1 §9.7.5.1.2). It carries no payload and at most
    /// [`MAX_MESSAGE`] bytes, comes between messages, and its QP takes READs
    /// (`max_dest_rd_atomic` not 0; else an invalid request, as rxe); its rkey
    /// must allow REMOTE_READ of the whole range (else a remote access error); both put the QP
    /// in error. A new READ takes one PSN per response packet and finishes a message.
    fn read(&mut self, ctx: &QpContext, mrs: &[Option<MemoryRegion>], pkt: &RocePacket, duplicate: bool) -> Effect {
        let p = pkt.bth.psn;
        let nak = |s: &mut RspState, outcome, syndrome| {
            s.error = true;
            Effect { outcome, response: Some(Response { syndrome, psn: p, msn: s.msn }), completion: None, read: None, atomic: None }
        };
        let reth = pkt.ext.iter().find_map(|e| if let Ext::Reth(r) = e { Some(*r) } else { None }).unwrap_or(Reth::default());
        if duplicate && ctx.max_dest_rd_atomic == 0 {
            // No READ was executed on this QP: one behind the ePSN is stale and dropped (rxe
            // drops a duplicate it holds no resource for).
            return Effect { outcome: Outcome::Duplicate, response: None, completion: None, read: None, atomic: None };
        }
        if (self.in_msg && !duplicate) || !pkt.payload.is_empty() || reth.dma_len > MAX_MESSAGE || ctx.max_dest_rd_atomic == 0 {
            return nak(self, Outcome::InvalidRequest, aeth::NAK_INVALID_REQUEST);
        }
        if let Err(e) = mr::check(mrs, reth.rkey, ctx.pd, reth.va, reth.dma_len, mr::access::REMOTE_READ) {
            return nak(self, Outcome::RemoteAccess(e), aeth::NAK_REMOTE_ACCESS);
        }
        let packets = ReadReply::packets(reth.dma_len, ctx.pmtu_log2);
        let inside = |r: &SavedRead| (psn::diff(p, r.psn) as u32) < r.packets;
        // (The last slot that holds it, as the card's compare of all eight at once; a duplicate
        // replaces only answers that are the QP's last, so its own follows them directly.)
        let mut slot = self.reads.iter().rposition(|r| r.as_ref().is_some_and(inside)).filter(|s| self.last_read == Some(*s));
        if !duplicate {
            self.epsn = psn::add(self.epsn, packets);
            self.nak_sent = false;
            self.msn = psn::add(self.msn, 1);
            slot = Some(self.reads_next);
            self.reads[self.reads_next] = Some(SavedRead { psn: p, packets });
            self.reads_next = (self.reads_next + 1) % SAVED_ATOMICS;
        }
        let saved = self.reads.iter().flatten();
        let mid = duplicate && !saved.clone().any(|r| r.psn == p) && saved.clone().any(inside);
        let read = ReadReply { psn: p, va: reth.va, len: reth.dma_len, msn: self.msn, mid, slot };
        let outcome = if duplicate { Outcome::Duplicate } else { Outcome::Read };
        Effect { outcome, response: None, completion: None, read: Some(read), atomic: None }
    }

    /// A COMPARE & SWAP or FETCH & ADD request at the ePSN, or behind it (`duplicate`: answered
    /// with the saved result of the request with that PSN, nothing executed; one whose result
    /// is no longer kept is not answered, as rxe). A new one comes between messages on a QP
    /// that takes atomics (`max_dest_rd_atomic` not 0; else an invalid request); its rkey must allow REMOTE_ATOMIC of the eight bytes (else a remote
    /// access error), and its address must be 8-byte aligned (else an invalid request, IBTA
    /// Vol 1 §9.4.5; checked after the key, as rxe); each puts the QP in error. It takes one
    /// PSN and finishes a message.
    fn atomic(&mut self, ctx: &QpContext, mrs: &[Option<MemoryRegion>], pkt: &RocePacket, duplicate: bool) -> Effect {
        let p = pkt.bth.psn;
        let none = Effect { outcome: Outcome::Duplicate, response: None, completion: None, read: None, atomic: None };
        let a = pkt.ext.iter().find_map(|e| if let Ext::AtomicEth(a) = e { Some(*a) } else { None }).unwrap_or_default();
        let op = if pkt.bth.opcode == OP_CMP_SWAP {
            AtomicOp::CmpSwap { compare: a.compare, swap: a.swap_add }
        } else {
            AtomicOp::FetchAdd { add: a.swap_add }
        };
        if duplicate {
            let saved = self.saved.iter().flatten().find(|s| s.psn == p);
            return Effect { atomic: saved.map(|s| AtomicReply { psn: p, msn: s.msn, va: a.va, op, orig: Some(s.orig) }), ..none };
        }
        let nak = |s: &mut RspState, outcome, syndrome| {
            s.error = true;
            Effect { outcome, response: Some(Response { syndrome, psn: p, msn: s.msn }), ..none }
        };
        if self.in_msg || !pkt.payload.is_empty() || ctx.max_dest_rd_atomic == 0 {
            return nak(self, Outcome::InvalidRequest, aeth::NAK_INVALID_REQUEST);
        }
        if let Err(e) = mr::check(mrs, a.rkey, ctx.pd, a.va, 8, mr::access::REMOTE_ATOMIC) {
            return nak(self, Outcome::RemoteAccess(e), aeth::NAK_REMOTE_ACCESS);
        }
        if a.va % 8 != 0 {
            return nak(self, Outcome::InvalidRequest, aeth::NAK_INVALID_REQUEST);
        }
        self.epsn = psn::add(self.epsn, 1);
        self.nak_sent = false;
        self.msn = psn::add(self.msn, 1);
        Effect { outcome: Outcome::Atomic, atomic: Some(AtomicReply { psn: p, msn: self.msn, va: a.va, op, orig: None }), ..none }
    }

    /// The new atomic `reply` was executed and found `orig` in memory: its result is kept for
    /// duplicates (the oldest kept one makes room).
    pub fn executed(&mut self, reply: &AtomicReply, orig: u64) {
        self.saved[self.saved_next] = Some(SavedAtomic { psn: reply.psn, msn: reply.msn, orig });
        self.saved_next = (self.saved_next + 1) % SAVED_ATOMICS;
    }
}

impl AtomicReply {
    /// The ATOMIC Acknowledge for QP `ctx` of port `port`, once the original value is known.
    pub fn descriptor(&self, port: &PortAddress, ctx: &QpContext, orig: u64) -> TxDescriptor {
        let ack = Response { syndrome: aeth::ACK, psn: self.psn, msn: self.msn }.descriptor(port, ctx);
        TxDescriptor { opcode: OP_ATOMIC_ACK, atomic: AtomicArgs { value: orig, compare: 0 }, ..ack }
    }
}

/// The packet comes from the QP's connected peer: its source IP address is the QP's remote
/// address (and of the same IP version), and its P_Key matches the QP's (the low 15 bits equal,
/// one of the two a full member).
pub fn from_peer(ctx: &QpContext, pkt: &RocePacket) -> bool {
    let ip_ok = match (&pkt.ip, ctx.remote_ip) {
        (IpHeader::V4(h), RemoteIp::V4(a)) => h.src == a,
        (IpHeader::V6(h), RemoteIp::V6(a)) => h.src == a,
        _ => false,
    };
    ip_ok && pkey_match(pkt.bth.pkey, ctx.pkey)
}

/// IBTA §10.9.3: two P_Keys match when their low 15 bits are equal and at least one of them is
/// a full member (bit 15 set).
pub fn pkey_match(a: u16, b: u16) -> bool {
    (a ^ b) & 0x7FFF == 0 && (a | b) & 0x8000 != 0
}

impl Response {
    /// The ACK / NAK packet for QP `ctx` of port `port`: an RC Acknowledge with this AETH on
    /// the QP's path to its remote QPN.
    pub fn descriptor(&self, port: &PortAddress, ctx: &QpContext) -> TxDescriptor {
        TxDescriptor {
            eth_dst: ctx.dest_mac,
            eth_src: port.mac,
            vlan: ctx.vlan,
            ip: ctx.ip_pair(port),
            dscp: ctx.dscp,
            ecn: ctx.ecn,
            ttl: ctx.ttl,
            flow_label: ctx.flow_label,
            udp_src_port: ctx.udp_src_port,
            opcode: OP_ACK,
            se: false,
            pkey: ctx.pkey,
            dest_qp: ctx.dest_qpn,
            ack_req: false,
            psn: self.psn,
            reth: Reth::default(),
            imm: 0,
            aeth: Aeth { syndrome: self.syndrome, msn: self.msn },
            atomic: Default::default(),
            payload_len: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qp::tests::ctx;

    fn pkt(opcode: u8, psn: u32, len: usize, imm: u32, reth: Reth) -> RocePacket {
        let port = PortAddress { mac: [2, 0, 0, 0, 0, 2], ipv4: [192, 0, 2, 2], ipv6: [0; 16] };
        let d = Response { syndrome: 0, psn, msn: 0 }.descriptor(&port, &ctx());
        let d = TxDescriptor { opcode, ack_req: true, reth, imm, payload_len: len as u16, aeth: Aeth::default(), ..d };
        d.packet(&vec![7; len]).expect("a packet")
    }

    #[test]
    fn sends_fill_receive_buffers_and_complete_them() {
        let mr = MemoryRegion { key: 0x101, base: 0x1000, length: 0x10000, access: mr::access::LOCAL_WRITE | mr::access::REMOTE_WRITE, pd: 1 };
        let mut mrs = vec![None; 256];
        mrs[1] = Some(mr);
        let rq = [
            RecvWqe { wr_id: 10, addr: 0x2000, length: 3000, lkey: 0x101 },
            RecvWqe { wr_id: 11, addr: 0, length: 0, lkey: 0 },
            RecvWqe { wr_id: 12, addr: 0x8000, length: 16, lkey: 0x101 },
        ];
        let c = ctx();
        let mut s = RspState::new(0);
        let none = Reth::default();
        // A 2-packet SEND with immediate: FIRST at the buffer, LAST behind it, one completion.
        let e = s.receive(Some(&c), &mrs, &rq, &pkt(OP_SEND_FIRST, 0, 1024, 0, none));
        assert_eq!((e.outcome, e.completion), (Outcome::Placed { addr: 0x2000, len: 1024 }, None));
        let e = s.receive(Some(&c), &mrs, &rq, &pkt(OP_SEND_LAST_IMM, 1, 900, 0xABCD, none));
        assert_eq!(e.outcome, Outcome::Placed { addr: 0x2400, len: 900 });
        let want = RecvCompletion { wqe_index: 0, status: CqStatus::Success, op: CqOp::Recv, byte_len: 1924, imm: Some(0xABCD) };
        assert_eq!(e.completion, Some(want));
        assert_eq!(e.response.map(|r| (r.syndrome, r.msn)), Some((aeth::ACK, 1)));
        // A WRITE with immediate lands at its RETH address and consumes the next WQE.
        let e = s.receive(Some(&c), &mrs, &rq, &pkt(OP_WRITE_ONLY_IMM, 2, 8, 5, Reth { va: 0x3000, rkey: 0x101, dma_len: 8 }));
        assert_eq!(e.outcome, Outcome::Placed { addr: 0x3000, len: 8 });
        assert_eq!(e.completion.map(|c| (c.wqe_index, c.op, c.byte_len, c.imm)), Some((1, CqOp::RecvRdmaImm, 8, Some(5))));
        // The third buffer is too small: NAK invalid request, a local length error, QP in error.
        let e = s.receive(Some(&c), &mrs, &rq, &pkt(OP_SEND_ONLY, 3, 17, 0, none));
        assert_eq!(e.outcome, Outcome::ReceiveError(CqStatus::LocalLength));
        assert_eq!(e.response.map(|r| r.syndrome), Some(aeth::NAK_INVALID_REQUEST));
        assert_eq!(e.completion.map(|c| (c.wqe_index, c.status, c.byte_len)), Some((2, CqStatus::LocalLength, 0)));
        assert_eq!(s.receive(Some(&c), &mrs, &rq, &pkt(OP_SEND_ONLY, 3, 1, 0, none)).outcome, Outcome::BadQp, "the QP is in error");
    }

    #[test]
    fn a_region_deregistered_mid_message_gets_no_more_bytes() {
        let mr = MemoryRegion { key: 0x101, base: 0x1000, length: 0x4000, access: mr::access::LOCAL_WRITE | mr::access::REMOTE_WRITE, pd: 1 };
        let mut mrs = vec![None; 256];
        mrs[1] = Some(mr);
        let c = ctx();
        // WRITE: FIRST placed, the region goes, MIDDLE refused (remote access), QP in error.
        let mut s = RspState::new(0);
        let e = s.receive(Some(&c), &mrs, &[], &pkt(OP_WRITE_FIRST, 0, 1024, 0, Reth { va: 0x1000, rkey: 0x101, dma_len: 3000 }));
        assert_eq!(e.outcome, Outcome::Placed { addr: 0x1000, len: 1024 });
        let none = vec![None; 256];
        let e = s.receive(Some(&c), &none, &[], &pkt(OP_WRITE_MIDDLE, 1, 1024, 0, Reth::default()));
        assert_eq!(e.outcome, Outcome::RemoteAccess(AccessError::UnknownKey));
        assert_eq!(e.response.map(|r| r.syndrome), Some(aeth::NAK_REMOTE_ACCESS));
        assert!(s.error);
        // SEND: the receive buffer's region goes; the WQE completes with a protection error.
        let rq = [RecvWqe { wr_id: 1, addr: 0x2000, length: 4096, lkey: 0x101 }];
        let mut s = RspState::new(0);
        let e = s.receive(Some(&c), &mrs, &rq, &pkt(OP_SEND_FIRST, 0, 1024, 0, Reth::default()));
        assert_eq!(e.outcome, Outcome::Placed { addr: 0x2000, len: 1024 });
        let e = s.receive(Some(&c), &none, &rq, &pkt(OP_SEND_LAST, 1, 10, 0, Reth::default()));
        assert_eq!(e.outcome, Outcome::ReceiveError(CqStatus::LocalProtection));
        assert_eq!(e.completion.map(|c| (c.wqe_index, c.status)), Some((0, CqStatus::LocalProtection)));
        // With the region still there the message completes.
        let mut s = RspState::new(0);
        s.receive(Some(&c), &mrs, &rq, &pkt(OP_SEND_FIRST, 0, 1024, 0, Reth::default()));
        let e = s.receive(Some(&c), &mrs, &rq, &pkt(OP_SEND_LAST, 1, 10, 0, Reth::default()));
        assert_eq!(e.completion.map(|c| (c.status, c.byte_len)), Some((CqStatus::Success, 1034)));
    }

    #[test]
    fn only_the_connected_peer_is_heard_and_write_only_fits_the_path_mtu() {
        let mr = MemoryRegion { key: 0x101, base: 0x1000, length: 0x4000, access: mr::access::REMOTE_WRITE, pd: 1 };
        let mut mrs = vec![None; 256];
        mrs[1] = Some(mr);
        let c = ctx();
        let reth = Reth { va: 0x1000, rkey: 0x101, dma_len: 8 };
        let mut s = RspState::new(0);
        let mut p = pkt(OP_WRITE_ONLY, 0, 8, 0, reth);
        if let IpHeader::V4(h) = &mut p.ip {
            h.src = [192, 0, 2, 9];
        }
        assert_eq!(s.receive(Some(&c), &mrs, &[], &p).outcome, Outcome::BadSource);
        let mut p = pkt(OP_WRITE_ONLY, 0, 8, 0, reth);
        p.bth.pkey = 0x7FFF;
        assert_eq!(s.receive(Some(&c), &mrs, &[], &p).outcome, Outcome::Placed { addr: 0x1000, len: 8 }, "a limited member meets a full one");
        let mut p = pkt(OP_WRITE_ONLY, 1, 8, 0, reth);
        p.bth.pkey = 0x8001;
        assert_eq!(s.receive(Some(&c), &mrs, &[], &p).outcome, Outcome::BadSource);
        assert!(pkey_match(0x8001, 0x0001) && !pkey_match(0x0001, 0x0001) && !pkey_match(0xFFFF, 0x8001));
        assert_eq!(s, RspState { epsn: 1, msn: 1, va: 0x1008, key: 0x101, count: 8, ..RspState::default() }, "nothing but the good packet counted");
        // One byte past the path MTU (1024) in a WRITE ONLY: invalid, even inside the region.
        let reth = Reth { va: 0x1000, rkey: 0x101, dma_len: 1025 };
        let e = s.receive(Some(&c), &mrs, &[], &pkt(OP_WRITE_ONLY, 1, 1025, 0, reth));
        assert_eq!(e.outcome, Outcome::InvalidRequest);
        assert!(s.error);
    }

    #[test]
    fn no_receive_wqe_is_an_rnr_nak_that_silences_what_follows() {
        let c = ctx();
        let mut s = RspState::new(5);
        let e = s.receive(Some(&c), &[], &[], &pkt(OP_SEND_ONLY, 5, 10, 0, Reth::default()));
        assert_eq!((e.outcome, e.response.map(|r| (r.syndrome, r.psn))), (Outcome::ReceiverNotReady, Some((aeth::RNR_NAK, 5))));
        assert_eq!(s, RspState { nak_sent: true, ..RspState::new(5) }, "only: later packets wait silently");
        let e = s.receive(Some(&c), &[], &[], &pkt(OP_SEND_ONLY, 6, 10, 0, Reth::default()));
        assert_eq!((e.outcome, e.response), (Outcome::SequenceError, None), "no sequence NAK behind an RNR NAK");
        // A SEND LAST with immediate needs no WQE of its own: without a FIRST it is out of order.
        let e = s.receive(Some(&c), &[], &[], &pkt(OP_SEND_LAST_IMM, 5, 10, 0, Reth::default()));
        assert_eq!(e.outcome, Outcome::InvalidRequest);
        assert!(s.error, "an invalid request puts the QP in error (class C)");
        let mut s = RspState::new(5);
        // A receive buffer whose lkey lacks LOCAL_WRITE: NAK remote operational error.
        let mr = MemoryRegion { key: 0x102, base: 0, length: 4096, access: mr::access::REMOTE_WRITE, pd: 1 };
        let mut mrs = vec![None; 256];
        mrs[2] = Some(mr);
        let rq = [RecvWqe { wr_id: 1, addr: 0, length: 64, lkey: 0x102 }];
        let e = s.receive(Some(&c), &mrs, &rq, &pkt(OP_SEND_ONLY, 5, 10, 0, Reth::default()));
        assert_eq!(e.response.map(|r| r.syndrome), Some(aeth::NAK_REMOTE_OPERATIONAL));
        assert_eq!(e.completion.map(|c| c.status), Some(CqStatus::LocalProtection));
    }

    #[test]
    fn reads_answer_from_memory_one_psn_per_response_packet() {
        let read_only = MemoryRegion { key: 0x101, base: 0x1000, length: 0x10000, access: mr::access::REMOTE_READ, pd: 1 };
        let write_only = MemoryRegion { key: 0x202, access: mr::access::REMOTE_WRITE, ..read_only };
        let mut mrs = vec![None; 256];
        mrs[1] = Some(read_only);
        mrs[2] = Some(write_only);
        let c = ctx();
        assert_eq!(c.pmtu_log2, 10);
        let mut s = RspState::new(100);
        let reth = |va, rkey, dma_len| Reth { va, rkey, dma_len };
        // 3000 bytes: FIRST, MIDDLE, LAST at PSNs 100 ... 102, AETH with the new MSN on FIRST / LAST.
        let e = s.receive(Some(&c), &mrs, &[], &pkt(OP_READ_REQUEST, 100, 0, 0, reth(0x1800, 0x101, 3000)));
        assert_eq!((e.outcome, e.response), (Outcome::Read, None), "the responses are the acknowledge");
        let r = e.read.expect("a read to answer");
        assert_eq!(r, ReadReply { psn: 100, va: 0x1800, len: 3000, msn: 1, mid: false, slot: Some(0) });
        assert_eq!((s.epsn, s.msn), (103, 1));
        let ack = Some(Aeth { syndrome: aeth::ACK, msn: 1 });
        assert_eq!(
            r.responses(10),
            [
                ReadResponse { opcode: OP_READ_RESPONSE_FIRST, psn: 100, aeth: ack, va: 0x1800, len: 1024 },
                ReadResponse { opcode: OP_READ_RESPONSE_MIDDLE, psn: 101, aeth: None, va: 0x1C00, len: 1024 },
                ReadResponse { opcode: OP_READ_RESPONSE_LAST, psn: 102, aeth: ack, va: 0x2000, len: 952 },
            ]
        );
        // Length 0 takes one PSN and is answered by an empty ONLY; no key is needed for it.
        let e = s.receive(Some(&c), &mrs, &[], &pkt(OP_READ_REQUEST, 103, 0, 0, reth(0, 0x999, 0)));
        assert_eq!(e.read.map(|r| r.responses(10)), Some(vec![ReadResponse { opcode: OP_READ_RESPONSE_ONLY, psn: 103, aeth: Some(Aeth { syndrome: aeth::ACK, msn: 2 }), va: 0, len: 0 }]));
        assert_eq!(s.epsn, 104);
        // A duplicate is executed again from its PSN; the state stays. One inside the first
        // READ (its rest, asked for again) is answered from the middle: MIDDLE, LAST.
        let e = s.receive(Some(&c), &mrs, &[], &pkt(OP_READ_REQUEST, 101, 0, 0, reth(0x1C00, 0x101, 2000)));
        // (The QP's last answer is the one to READ 103: this one replaces nothing.)
        assert_eq!((e.outcome, e.read), (Outcome::Duplicate, Some(ReadReply { psn: 101, va: 0x1C00, len: 2000, msn: 2, mid: true, slot: None })));
        assert_eq!((s.epsn, s.msn), (104, 2));
        let ops: Vec<(u8, bool)> = e.read.unwrap().responses(10).iter().map(|r| (r.opcode, r.aeth.is_some())).collect();
        assert_eq!(ops, [(OP_READ_RESPONSE_MIDDLE, false), (OP_READ_RESPONSE_LAST, true)]);
        let e = s.receive(Some(&c), &mrs, &[], &pkt(OP_READ_REQUEST, 102, 0, 0, reth(0x2000, 0x101, 952)));
        assert_eq!(e.read.unwrap().responses(10)[0].opcode, OP_READ_RESPONSE_LAST, "the last packet's rest: LAST alone");
        // At a READ's first PSN, or at a PSN no kept READ covers: FIRST / ONLY.
        let e = s.receive(Some(&c), &mrs, &[], &pkt(OP_READ_REQUEST, 100, 0, 0, reth(0x1800, 0x101, 3000)));
        assert_eq!(e.read.map(|r| (r.mid, r.responses(10)[0].opcode)), Some((false, OP_READ_RESPONSE_FIRST)));
        assert_eq!(e.read.map(|r| r.slot), Some(None), "behind other answers: replaces nothing");
        let e = s.receive(Some(&c), &mrs, &[], &pkt(OP_READ_REQUEST, 99, 0, 0, reth(0x1800, 0x101, 8)));
        assert_eq!(e.read.map(|r| (r.mid, r.responses(10)[0].opcode)), Some((false, OP_READ_RESPONSE_ONLY)));
        assert_eq!(e.read.map(|r| r.slot), Some(None), "outside every kept READ: replaces nothing");
        // A duplicate of the READ whose answer is the QP's last replaces it, and its own answer
        // is replaced by the next such duplicate; any other answer in between ends that.
        let mut t = RspState::new(100);
        let read = |t: &mut RspState, p, va, len| t.receive(Some(&c), &mrs, &[], &pkt(OP_READ_REQUEST, p, 0, 0, reth(va, 0x101, len))).read.unwrap().slot;
        assert_eq!(read(&mut t, 100, 0x1800, 3000), Some(0));
        assert_eq!(read(&mut t, 101, 0x1C00, 2000), Some(0), "the last answer is READ 100's");
        assert_eq!(read(&mut t, 100, 0x1800, 3000), Some(0), "the last answer is its duplicate's");
        assert_eq!(read(&mut t, 103, 0x1800, 8), Some(1));
        assert_eq!(read(&mut t, 100, 0x1800, 3000), None, "READ 103's answer is behind");
        assert_eq!(read(&mut t, 103, 0x1800, 8), None, "the duplicate's answer is behind");
        // A READ ahead of the ePSN is a sequence error like any request.
        let e = s.receive(Some(&c), &mrs, &[], &pkt(OP_READ_REQUEST, 106, 0, 0, reth(0x1800, 0x101, 8)));
        assert_eq!((e.outcome, e.read), (Outcome::SequenceError, None));
        // The rkey must allow REMOTE_READ over the whole range; a READ carries no payload and at
        // most 2^31 bytes. Each of these puts the QP in error.
        let bad = [
            (pkt(OP_READ_REQUEST, 104, 0, 0, reth(0x1800, 0x202, 8)), Outcome::RemoteAccess(AccessError::NoAccess)),
            (pkt(OP_READ_REQUEST, 104, 0, 0, reth(0x10F00, 0x101, 0x200)), Outcome::RemoteAccess(AccessError::OutOfBounds)),
            (pkt(OP_READ_REQUEST, 104, 4, 0, reth(0x1800, 0x101, 8)), Outcome::InvalidRequest),
            (pkt(OP_READ_REQUEST, 104, 0, 0, reth(0x1800, 0x101, MAX_MESSAGE + 1)), Outcome::InvalidRequest),
        ];
        for (p, want) in bad {
            let mut t = s;
            let e = t.receive(Some(&c), &mrs, &[], &p);
            assert_eq!((e.outcome, e.read, t.error, t.epsn), (want, None, true, 104));
        }
        // A QP with max_dest_rd_atomic 0 takes no READ and no atomic; a READ behind the ePSN
        // there is stale: dropped.
        let none = QpContext { max_dest_rd_atomic: 0, ..c };
        for p in [pkt(OP_READ_REQUEST, 104, 0, 0, reth(0x1800, 0x101, 8)), pkt(OP_FETCH_ADD, 104, 0, 0, reth(0x1800, 0x101, 0))] {
            let mut t = s;
            let e = t.receive(Some(&none), &mrs, &[], &p);
            assert_eq!((e.outcome, e.read, e.atomic, t.error), (Outcome::InvalidRequest, None, None, true), "{:#x}", p.bth.opcode);
        }
        let mut t = s;
        let e = t.receive(Some(&none), &mrs, &[], &pkt(OP_READ_REQUEST, 100, 0, 0, reth(0x1800, 0x101, 8)));
        assert_eq!((e.outcome, e.read, e.response, t.error), (Outcome::Duplicate, None, None, false));
        // Between the packets of a WRITE it is an invalid request too.
        let mut mrs_w = mrs.clone();
        mrs_w[2] = Some(MemoryRegion { access: mr::access::REMOTE_WRITE | mr::access::REMOTE_READ, ..write_only });
        let e = s.receive(Some(&c), &mrs_w, &[], &pkt(OP_WRITE_FIRST, 104, 1024, 0, reth(0x1000, 0x202, 2048)));
        assert!(matches!(e.outcome, Outcome::Placed { .. }));
        let e = s.receive(Some(&c), &mrs_w, &[], &pkt(OP_READ_REQUEST, 105, 0, 0, reth(0x1800, 0x101, 8)));
        assert_eq!(e.outcome, Outcome::InvalidRequest);
    }
}
