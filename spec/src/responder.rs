//! The RC responder's reference model for RDMA WRITE (IBTA Vol 1 §9.7.5, §9.7.4.1): what an
//! arriving request packet does to the responder's state and memory, and what it answers.
//!
//! Checks, the first failing one decides: a QP that does not exist or is not in RTR / RTS
//! drops the packet silently; opcodes other than RDMA WRITE are set aside (not served yet);
//! a PSN behind the expected PSN (ePSN) is a duplicate — nothing is written again, and an
//! ACK answers it if it asks for one; a PSN ahead is a sequence error — one NAK carrying the
//! ePSN until the ePSN arrives; FIRST / ONLY while a message is in progress, or MIDDLE / LAST
//! without one, and payload lengths other than the path MTU (FIRST, MIDDLE) or the rest of the
//! RETH length (LAST, ONLY) are invalid requests (NAK); on FIRST / ONLY the rkey must allow
//! REMOTE_WRITE of the whole RETH range in the QP's protection domain (else NAK remote access
//! error). A packet that passes is placed at the message's next address, the ePSN advances,
//! and a packet with AckReq is acknowledged with the message sequence number (MSN, the count
//! of finished messages).

use crate::mr::{self, AccessError, MemoryRegion};
use crate::qp::{PortAddress, QpContext};
use crate::regs::qp_state;
use crate::wire::ib::{Aeth, Ext, Reth};
use crate::wire::packet::RocePacket;
use crate::wire::psn;
use crate::wire::tx::TxDescriptor;

pub const OP_WRITE_FIRST: u8 = 0x06;
pub const OP_WRITE_MIDDLE: u8 = 0x07;
pub const OP_WRITE_LAST: u8 = 0x08;
pub const OP_WRITE_LAST_IMM: u8 = 0x09;
pub const OP_WRITE_ONLY: u8 = 0x0A;
pub const OP_WRITE_ONLY_IMM: u8 = 0x0B;
pub const OP_ACK: u8 = 0x11;

/// AETH syndromes (IBTA Vol 1 §9.3.5, table 44): bits 6:5 say ACK (00), RNR NAK (01) or NAK
/// (11); the low five bits are the credit count or the NAK code.
pub mod aeth {
    /// ACK with the credit count "invalid": this responder does no end-to-end flow control.
    pub const ACK: u8 = 0x1F;
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
    /// A multi-packet WRITE is in progress at `va`, `left` bytes to go.
    pub in_msg: bool,
    /// A sequence-error NAK went out and the ePSN has not arrived since.
    pub nak_sent: bool,
    pub va: u64,
    pub left: u32,
}

/// What a packet did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The payload was written: `len` bytes at `addr`.
    Placed { addr: u64, len: u32 },
    Duplicate,
    SequenceError,
    InvalidRequest,
    RemoteAccess(AccessError),
    BadQp,
    SetAside,
}

/// An ACK or NAK the responder sends (to the QP's path and remote QPN).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Response {
    pub syndrome: u8,
    pub psn: u32,
    pub msn: u32,
}

impl RspState {
    pub fn new(epsn: u32) -> RspState {
        RspState { epsn, ..Default::default() }
    }

    /// One arriving packet for a QP with context `ctx` (`None`: no such QP).
    pub fn receive(&mut self, ctx: Option<&QpContext>, mrs: &[Option<MemoryRegion>], pkt: &RocePacket) -> (Outcome, Option<Response>) {
        let Some(ctx) = ctx.filter(|c| matches!(c.state, qp_state::RTR | qp_state::RTS)) else {
            return (Outcome::BadQp, None);
        };
        let op = pkt.bth.opcode;
        if !(OP_WRITE_FIRST..=OP_WRITE_ONLY_IMM).contains(&op) {
            return (Outcome::SetAside, None);
        }
        let answer = |syndrome, psn, msn| Some(Response { syndrome, psn, msn });
        let p = pkt.bth.psn;
        let diff = psn::diff(p, self.epsn);
        if diff < 0 {
            return (Outcome::Duplicate, answer(aeth::ACK, p, self.msn).filter(|_| pkt.bth.ack_req));
        }
        if diff > 0 {
            let first_nak = !self.nak_sent;
            self.nak_sent = true;
            return (Outcome::SequenceError, answer(aeth::NAK_PSN_SEQUENCE, self.epsn, self.msn).filter(|_| first_nak));
        }
        let first = matches!(op, OP_WRITE_FIRST | OP_WRITE_ONLY | OP_WRITE_ONLY_IMM);
        let last = matches!(op, OP_WRITE_LAST | OP_WRITE_LAST_IMM | OP_WRITE_ONLY | OP_WRITE_ONLY_IMM);
        let invalid = (Outcome::InvalidRequest, answer(aeth::NAK_INVALID_REQUEST, p, self.msn));
        if first == self.in_msg {
            return invalid;
        }
        let reth = pkt.ext.iter().find_map(|e| if let Ext::Reth(r) = e { Some(*r) } else { None }).unwrap_or(Reth::default());
        let len = pkt.payload.len() as u32;
        let pmtu = 1u32 << ctx.pmtu_log2;
        let len_ok = match (first, last) {
            (true, true) => len == reth.dma_len,
            (true, false) => len == pmtu && reth.dma_len > pmtu,
            (false, false) => len == pmtu && self.left > pmtu,
            (false, true) => len == self.left && len != 0,
        };
        if !len_ok {
            return invalid;
        }
        if first {
            if let Err(e) = mr::check(mrs, reth.rkey, ctx.pd, reth.va, reth.dma_len, mr::access::REMOTE_WRITE) {
                return (Outcome::RemoteAccess(e), answer(aeth::NAK_REMOTE_ACCESS, p, self.msn));
            }
            self.va = reth.va;
            self.left = reth.dma_len;
        }
        let addr = self.va;
        self.epsn = psn::add(self.epsn, 1);
        self.nak_sent = false;
        self.in_msg = !last;
        self.va = self.va.wrapping_add(len as u64);
        self.left -= len;
        if last {
            self.msn = psn::add(self.msn, 1);
        }
        let ack = answer(aeth::ACK, p, self.msn).filter(|_| pkt.bth.ack_req);
        (Outcome::Placed { addr, len }, ack)
    }
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
            payload_len: 0,
        }
    }
}
