//! Queue pairs: the context the card keeps per QP, how the driver stages it in BAR0, and the
//! reference model of the RC requester — which packets one send work request becomes.
//!
//! A send WQE becomes `max(1, ceil(length / pmtu))` packets with consecutive PSNs: FIRST,
//! MIDDLE…, LAST, or a single ONLY (IBTA Vol 1 §9.4.1, §9.7). The first packet of an RDMA
//! WRITE carries the RETH (remote address, rkey, whole length); the last packet of a request
//! with immediate data carries the ImmDt; the last packet asks for an acknowledgement; the
//! solicited-event bit is set on the last packet when the WQE asks for it. Before any of it the
//! local key must allow reading the whole local buffer (C10-…: a requester validates its own
//! keys), and the request must be one this requester sends.

use crate::desc::{send_flags, SendOp, SendWqe, INLINE_MAX};
use crate::mr::{self, AccessError, MemoryRegion};
use crate::regs::{qp_flags, qp_state};
use crate::responder::{OP_CMP_SWAP, OP_FETCH_ADD, OP_READ_REQUEST};
use crate::wire::eth::Vlan;
use crate::wire::ib::Reth;
use crate::wire::psn;
use crate::wire::tx::{AtomicArgs, IpPair, TxDescriptor};

/// Smallest and largest path MTU, as log2 bytes (256 … 4096).
pub const PMTU_LOG2_MIN: u8 = 8;
pub const PMTU_LOG2_MAX: u8 = 12;
/// Largest RC message (IBTA: 2^31 bytes).
pub const MAX_MESSAGE: u32 = 1 << 31;
/// Largest send queue, as log2 entries: the requester keeps the first PSN of every WQE a
/// send queue can hold outstanding, for go-back-N (`retry`), in a table of this many per QP.
pub const SQ_LOG_SIZE_MAX: u8 = 8;
/// Largest receive queue, as log2 entries (doorbell indexes count modulo 2^16).
pub const RQ_LOG_SIZE_MAX: u8 = 15;
/// RDMA READs a send queue may have outstanding at once, at most (`max_rd_atomic`): the card
/// keeps each one's local buffer in a ring of this many entries per QP until its last response
/// is placed.
pub const RD_SLOTS: u8 = 8;
/// The requester serves QPs round-robin, a batch per turn: the WQEs waiting, at most this
/// many and not past the ring's end, fetched in one DMA read (at most 4 KiB: its
/// round trip, about 215 cycles with the 800 ns host plus the payload beats queued before it,
/// is paid once per 64 WQEs; 16 gave 64-byte WRITEs 9.5 M messages/s, 4 gave 4.2).
pub const WQE_BATCH: usize = 64;
/// Inside a long message, every packet whose PSN is a multiple of this minus one asks for an
/// acknowledge too (besides the last): the ACKs show progress before the message ends, so the
/// local ACK timer restarts and a resend after a timeout starts at the first packet not yet
/// acknowledged, not at the message's start. IBTA Vol 1 §9.7.2 lets a requester set AckReq on
/// any packet; Linux rxe does the same every 64 packets (`RXE_MAX_PKT_PER_ACK`).
pub const ACK_REQ_EVERY: u32 = 64;

/// Whether the request packet with `psn` asks for an acknowledge (`last`: it ends its message).
pub fn asks_ack(psn: u32, last: bool) -> bool {
    last || psn % ACK_REQ_EVERY == ACK_REQ_EVERY - 1
}

/// The port's own addresses: the source of every frame it sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PortAddress {
    pub mac: [u8; 6],
    pub ipv4: [u8; 4],
    pub ipv6: [u8; 16],
}

/// The remote end of a QP's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteIp {
    V4([u8; 4]),
    V6([u8; 16]),
}

/// What the card keeps per QP: its path, its send queue and its receive queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpContext {
    pub state: u32,
    pub dest_qpn: u32,
    pub dest_mac: [u8; 6],
    pub remote_ip: RemoteIp,
    pub vlan: Option<Vlan>,
    pub dscp: u8,
    pub ecn: u8,
    /// IPv4 TTL or IPv6 hop limit.
    pub ttl: u8,
    pub flow_label: u32,
    pub udp_src_port: u16,
    pub pkey: u16,
    pub pmtu_log2: u8,
    /// PSN of the first packet the send queue sends.
    pub sq_psn: u32,
    /// IOVA of the send queue ring (64-byte aligned).
    pub sq_base: u64,
    pub sq_log_size: u8,
    pub pd: u16,
    /// PSN the responder expects first.
    pub rq_psn: u32,
    /// Completion queue of the send queue.
    pub send_cq: u32,
    /// IOVA of the receive queue ring (32-byte aligned).
    pub rq_base: u64,
    pub rq_log_size: u8,
    /// Completion queue of the receive queue.
    pub recv_cq: u32,
    /// Local ACK timeout: 4.096 µs × 2^timeout (0 = none), as `ibv_qp_attr.timeout`.
    pub timeout: u8,
    /// Transport retries after a timeout or a sequence NAK before RetryExceeded (0 ... 7).
    pub retry_cnt: u8,
    /// Retries after RNR NAKs before RnrRetryExceeded (0 ... 6; 7 = without limit).
    pub rnr_retry: u8,
    /// RDMA READs outstanding at once (1 ... `RD_SLOTS`; 0 counts as 1), as
    /// `ibv_qp_attr.max_rd_atomic`: set it to at most the peer's `max_dest_rd_atomic`.
    pub max_rd_atomic: u8,
    /// READ and atomic requests from the peer this QP takes (`ibv_qp_attr.max_dest_rd_atomic`,
    /// 0 ... `RD_SLOTS`): 0 refuses every READ and atomic (NAK invalid request, the QP to
    /// error, as rxe); from 1 on the card keeps `RD_SLOTS` READs and atomic results per QP
    /// whatever the value (a compliant peer keeps within the number it was told; keeping more
    /// only lets more duplicates be answered).
    pub max_dest_rd_atomic: u8,
}

/// A QP in RESET with nothing connected: what every QP slot holds before the driver gives it
/// out (and what a card's QP table is swept to when a driver opens it).
impl Default for QpContext {
    fn default() -> Self {
        QpContext {
            state: qp_state::RESET,
            dest_qpn: 0,
            dest_mac: [0; 6],
            remote_ip: RemoteIp::V4([0; 4]),
            vlan: None,
            dscp: 0,
            ecn: 0,
            ttl: 64,
            flow_label: 0,
            udp_src_port: 0,
            pkey: 0xFFFF,
            pmtu_log2: 10,
            sq_psn: 0,
            sq_base: 0,
            sq_log_size: 0,
            pd: 0,
            rq_psn: 0,
            send_cq: 0,
            rq_base: 0,
            rq_log_size: 0,
            recv_cq: 0,
            timeout: 0,
            retry_cnt: 0,
            rnr_retry: 0,
            max_rd_atomic: RD_SLOTS,
            max_dest_rd_atomic: RD_SLOTS,
        }
    }
}

/// Why a send WQE was refused without sending anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WqeError {
    /// An opcode this requester does not send: no opcode at all.
    UnsupportedOp(u8),
    /// The operation, length and inline flag do not fit together.
    Shape(ShapeError),
    /// The local key does not allow reading the buffer (writing it, for an RDMA READ).
    LocalKey(AccessError),
}

/// A send WQE whose operation, length and inline flag do not fit together: the rules the card
/// checks before any key, which the driver checks before posting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeError {
    /// Longer than an RC message may be.
    TooLong(u32),
    /// An atomic whose local buffer is not the 8 bytes its original value takes.
    AtomicLength(u32),
    /// Inline data (`send_flags::INLINE`) longer than the WQE holds (`INLINE_MAX`).
    InlineTooLong(u32),
    /// Inline data on an RDMA READ or an atomic: they carry no payload.
    InlineOp(SendOp),
}

/// The shape rules of a send WQE, in the order the card reports them (an inline READ or
/// atomic is refused before an atomic's length, as the card reports the operation error over
/// the length error).
pub fn check_shape(op: SendOp, length: u32, inline: bool) -> Result<(), ShapeError> {
    if length > MAX_MESSAGE {
        return Err(ShapeError::TooLong(length));
    }
    if inline && (op == SendOp::Read || op.is_atomic()) {
        return Err(ShapeError::InlineOp(op));
    }
    if op.is_atomic() && length != 8 {
        return Err(ShapeError::AtomicLength(length));
    }
    if inline && length > INLINE_MAX as u32 {
        return Err(ShapeError::InlineTooLong(length));
    }
    Ok(())
}

/// Where a request packet's payload comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    /// Read from host memory at this address.
    Host(u64),
    /// The WQE's inline bytes (the first `payload_len` of them).
    Inline([u8; INLINE_MAX]),
}

/// One packet of a request: the descriptor for the transmit engine and its payload's source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestPacket {
    pub desc: TxDescriptor,
    pub payload: Payload,
}

/// Opcode of a request packet: SEND and RDMA WRITE lay their six opcodes out alike from their
/// base (FIRST, MIDDLE, LAST, LAST with immediate, ONLY, ONLY with immediate).
pub fn request_opcode(op: SendOp, first: bool, last: bool) -> u8 {
    let base = if op.is_rdma() { 0x06 } else { 0x00 };
    let imm = op.has_imm() as u8;
    base + match (first, last) {
        (true, false) => 0,
        (false, false) => 1,
        (false, true) => 2 + imm,
        (true, true) => 4 + imm,
    }
}

/// Packets of one message of `length` bytes at path MTU `2^pmtu_log2`.
pub fn packet_count(length: u32, pmtu_log2: u8) -> u32 {
    length.div_ceil(1 << pmtu_log2).max(1)
}

/// The `qp.retry` register: timeout in bits 4:0, retry count 10:8, RNR retry count 14:12,
/// `max_rd_atomic` 19:16, `max_dest_rd_atomic` 23:20.
pub fn retry_word(q: &QpContext) -> u32 {
    (q.timeout as u32 & 0x1F)
        | (q.retry_cnt as u32 & 7) << 8
        | (q.rnr_retry as u32 & 7) << 12
        | (q.max_rd_atomic as u32 & 0xF) << 16
        | (q.max_dest_rd_atomic as u32 & 0xF) << 20
}

/// A big-endian 32-bit register value from four bytes.
fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b.try_into().expect("4 bytes"))
}

/// A MAC address as its (low 32 bits, high 16 bits) register pair.
fn mac_words(mac: &[u8; 6]) -> (u32, u32) {
    (be32(&mac[2..]), u16::from_be_bytes([mac[0], mac[1]]) as u32)
}

impl QpContext {
    /// The IP addresses of this QP's packets from `port`: the path's version, the port's own
    /// address of that version as the source.
    pub fn ip_pair(&self, port: &PortAddress) -> IpPair {
        match self.remote_ip {
            RemoteIp::V4(dst) => IpPair::V4 { src: port.ipv4, dst },
            RemoteIp::V6(dst) => IpPair::V6 { src: port.ipv6, dst },
        }
    }

    /// The packets `wqe` becomes when its first PSN is `first_psn`, or why it is refused.
    /// `mrs` is the card's region table (slots as `mr::check` takes them).
    pub fn request(
        &self,
        port: &PortAddress,
        mrs: &[Option<MemoryRegion>],
        wqe: &SendWqe,
        first_psn: u32,
    ) -> Result<Vec<RequestPacket>, WqeError> {
        let Some(op) = SendOp::from_code(wqe.op) else {
            return Err(WqeError::UnsupportedOp(wqe.op));
        };
        let inline = wqe.flags & send_flags::INLINE != 0;
        check_shape(op, wqe.length, inline).map_err(WqeError::Shape)?;
        // An RDMA READ's responses and an atomic's original value are written into the local
        // buffer.
        let need = if op == SendOp::Read || op.is_atomic() { mr::access::LOCAL_WRITE } else { mr::access::LOCAL_READ };
        // Inline data was copied at post time: no buffer is read, no local key checked.
        if !inline {
            mr::check(mrs, wqe.lkey, self.pd, wqe.local_addr, wqe.length, need).map_err(WqeError::LocalKey)?;
        }
        let ip = self.ip_pair(port);
        if op == SendOp::Read || op.is_atomic() {
            // One request packet, no payload; a READ's responses take the PSNs after it, an
            // atomic's acknowledge its own. An atomic's AtomicETH takes the RETH's VA and R_Key
            // (its DMA length field stays the 8 bytes, unused on the wire).
            let opcode = match op {
                SendOp::CmpSwap => OP_CMP_SWAP,
                SendOp::FetchAdd => OP_FETCH_ADD,
                _ => OP_READ_REQUEST,
            };
            let atomic = if op.is_atomic() { AtomicArgs { value: wqe.swap_add, compare: wqe.compare } } else { AtomicArgs::default() };
            return Ok(vec![RequestPacket {
                desc: TxDescriptor {
                    opcode,
                    se: false,
                    ack_req: true,
                    psn: first_psn & psn::PSN_MASK,
                    reth: Reth { va: wqe.remote_addr, rkey: wqe.rkey, dma_len: wqe.length },
                    imm: 0,
                    atomic,
                    payload_len: 0,
                    ..self.descriptor(port, ip)
                },
                payload: Payload::Host(wqe.local_addr),
            }]);
        }
        let n = packet_count(wqe.length, self.pmtu_log2);
        let pmtu = 1u32 << self.pmtu_log2;
        let solicited = wqe.flags & send_flags::SOLICITED != 0 && matches!(op, SendOp::Send | SendOp::SendImm | SendOp::WriteImm);
        Ok((0..n)
            .map(|i| {
                let (first, last) = (i == 0, i == n - 1);
                let offset = i * pmtu;
                let len = if last { wqe.length - offset } else { pmtu };
                RequestPacket {
                    desc: TxDescriptor {
                        opcode: request_opcode(op, first, last),
                        se: last && solicited,
                        ack_req: asks_ack(psn::add(first_psn, i), last),
                        psn: psn::add(first_psn, i),
                        reth: if first && op.is_rdma() {
                            Reth { va: wqe.remote_addr, rkey: wqe.rkey, dma_len: wqe.length }
                        } else {
                            Reth::default()
                        },
                        imm: if last && op.has_imm() { wqe.imm } else { 0 },
                        payload_len: len as u16,
                        ..self.descriptor(port, ip)
                    },
                    payload: if inline { Payload::Inline(wqe.inline_data()) } else { Payload::Host(wqe.local_addr.wrapping_add(offset as u64)) },
                }
            })
            .collect())
    }

    /// A request packet's descriptor on this QP's path, its transport fields empty.
    fn descriptor(&self, port: &PortAddress, ip: IpPair) -> TxDescriptor {
        TxDescriptor {
            eth_dst: self.dest_mac,
            eth_src: port.mac,
            vlan: self.vlan,
            ip,
            dscp: self.dscp,
            ecn: self.ecn,
            ttl: self.ttl,
            flow_label: self.flow_label,
            udp_src_port: self.udp_src_port,
            opcode: 0,
            se: false,
            pkey: self.pkey,
            dest_qp: self.dest_qpn,
            ack_req: false,
            psn: 0,
            reth: Reth::default(),
            imm: 0,
            aeth: Default::default(),
            atomic: Default::default(),
            payload_len: 0,
        }
    }

    /// The `qp` block's staging registers for this context, by name (then write `qp.commit`).
    pub fn registers(&self) -> Vec<(&'static str, u32)> {
        let ip: [u8; 16] = match self.remote_ip {
            RemoteIp::V4(a) => {
                let mut w = [0; 16];
                w[12..].copy_from_slice(&a);
                w
            }
            RemoteIp::V6(a) => a,
        };
        let mut flags = 0;
        if matches!(self.remote_ip, RemoteIp::V6(_)) {
            flags |= qp_flags::IPV6;
        }
        if self.vlan.is_some() {
            flags |= qp_flags::VLAN;
        }
        let tci = self.vlan.map_or(0, |v| v.tci() as u32);
        let (mac_lo, mac_hi) = mac_words(&self.dest_mac);
        vec![
            ("state", self.state),
            ("dest_qpn", self.dest_qpn & psn::PSN_MASK),
            ("dest_mac_lo", mac_lo),
            ("dest_mac_hi", mac_hi),
            ("flags", flags),
            ("vlan_tci", tci),
            ("traffic", (self.dscp as u32 & 0x3F) | (self.ecn as u32 & 3) << 6 | (self.ttl as u32) << 8),
            ("flow_label", self.flow_label & 0xF_FFFF),
            ("udp_sport", self.udp_src_port as u32),
            ("dest_ip_0", be32(&ip[0..4])),
            ("dest_ip_1", be32(&ip[4..8])),
            ("dest_ip_2", be32(&ip[8..12])),
            ("dest_ip_3", be32(&ip[12..16])),
            ("pkey", self.pkey as u32),
            ("pmtu", self.pmtu_log2 as u32),
            ("sq_psn", self.sq_psn & psn::PSN_MASK),
            ("sq_base_lo", self.sq_base as u32),
            ("sq_base_hi", (self.sq_base >> 32) as u32),
            ("sq_log_size", self.sq_log_size as u32),
            ("pd", self.pd as u32),
            ("rq_psn", self.rq_psn & psn::PSN_MASK),
            ("send_cq", self.send_cq),
            ("rq_base_lo", self.rq_base as u32),
            ("rq_base_hi", (self.rq_base >> 32) as u32),
            ("rq_log_size", self.rq_log_size as u32),
            ("recv_cq", self.recv_cq),
            ("retry", retry_word(self)),
        ]
    }

    /// True when the card sends from this QP's send queue.
    pub fn sends(&self) -> bool {
        self.state == qp_state::RTS
    }
}

impl PortAddress {
    /// The `port` block's address registers, by name.
    pub fn registers(&self) -> Vec<(&'static str, u32)> {
        let (mac_lo, mac_hi) = mac_words(&self.mac);
        vec![
            ("mac_lo", mac_lo),
            ("mac_hi", mac_hi),
            ("ipv4", be32(&self.ipv4)),
            ("ipv6_0", be32(&self.ipv6[0..4])),
            ("ipv6_1", be32(&self.ipv6[4..8])),
            ("ipv6_2", be32(&self.ipv6[8..12])),
            ("ipv6_3", be32(&self.ipv6[12..16])),
        ]
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::regs;

    /// An RTS QP over IPv4 with PMTU 1024 in PD 1 (other models' tests start from it too).
    pub(crate) fn ctx() -> QpContext {
        QpContext {
            state: qp_state::RTS,
            dest_qpn: 0x12,
            dest_mac: [2, 0, 0, 0, 0, 2],
            remote_ip: RemoteIp::V4([192, 0, 2, 2]),
            vlan: None,
            dscp: 26,
            ecn: 2,
            ttl: 64,
            flow_label: 0,
            udp_src_port: 0xC001,
            pkey: 0xFFFF,
            pmtu_log2: 10,
            sq_psn: 0xFF_FFFE,
            sq_base: 0x1000,
            sq_log_size: 4,
            pd: 1,
            rq_psn: 0,
            send_cq: 0,
            rq_base: 0x2000,
            rq_log_size: 4,
            recv_cq: 0,
            timeout: 14,
            retry_cnt: 7,
            rnr_retry: 7,
            max_rd_atomic: RD_SLOTS,
            max_dest_rd_atomic: RD_SLOTS,
        }
    }

    #[test]
    fn segments_by_pmtu_with_wrapping_psns() {
        let mr = MemoryRegion { key: 0x101, base: 0x10_0000, length: 1 << 20, access: 0, pd: 1 };
        let mut mrs = vec![None; 256];
        mrs[1] = Some(mr);
        let port = PortAddress { mac: [2, 0, 0, 0, 0, 1], ipv4: [192, 0, 2, 1], ipv6: [0; 16] };
        let wqe = SendWqe {
            op: SendOp::WriteImm as u8,
            length: 2500,
            lkey: 0x101,
            local_addr: 0x10_0010,
            remote_addr: 0x9000,
            rkey: 7,
            imm: 0xABCD,
            flags: send_flags::SOLICITED,
            ..Default::default()
        };
        let p = ctx().request(&port, &mrs, &wqe, 0xFF_FFFE).unwrap();
        let ops: Vec<u8> = p.iter().map(|p| p.desc.opcode).collect();
        assert_eq!(ops, [0x06, 0x07, 0x09]);
        let psns: Vec<u32> = p.iter().map(|p| p.desc.psn).collect();
        assert_eq!(psns, [0xFF_FFFE, 0xFF_FFFF, 0]);
        let lens: Vec<u16> = p.iter().map(|p| p.desc.payload_len).collect();
        assert_eq!(lens, [1024, 1024, 452]);
        assert_eq!(p[0].desc.reth, Reth { va: 0x9000, rkey: 7, dma_len: 2500 });
        assert_eq!(p[2].payload, Payload::Host(0x10_0010 + 2048));
        assert!(p[2].desc.ack_req && p[2].desc.se && !p[0].desc.ack_req && !p[1].desc.se);
        // Inside a long message, PSNs 63, 127, ... ask for an acknowledge too.
        let long = SendWqe { length: 130 * 1024, ..wqe };
        let acks: Vec<u32> = ctx().request(&port, &mrs, &long, 60).unwrap().iter().filter(|p| p.desc.ack_req).map(|p| p.desc.psn).collect();
        assert_eq!(acks, [63, 127, 189]);
        assert_eq!(p[2].desc.imm, 0xABCD);
        // Zero length: one ONLY packet, no key needed.
        let empty = SendWqe { op: SendOp::Send as u8, length: 0, lkey: 0xDEAD, ..Default::default() };
        let p = ctx().request(&port, &mrs, &empty, 5).unwrap();
        assert_eq!((p.len(), p[0].desc.opcode, p[0].desc.payload_len), (1, 0x04, 0));
        // Refusals.
        let bad = SendWqe { lkey: 0x201, ..wqe };
        assert_eq!(ctx().request(&port, &mrs, &bad, 0), Err(WqeError::LocalKey(AccessError::UnknownKey)));
        let unknown = SendWqe { op: 7, ..wqe };
        assert_eq!(ctx().request(&port, &mrs, &unknown, 0), Err(WqeError::UnsupportedOp(7)));
        let atomic = SendWqe { op: SendOp::FetchAdd as u8, swap_add: 5, compare: 9, ..wqe };
        assert_eq!(ctx().request(&port, &mrs, &atomic, 0), Err(WqeError::Shape(ShapeError::AtomicLength(2500))));
        // An RDMA READ: one request with the RETH and no payload; the local buffer must allow
        // LOCAL_WRITE.
        let read = SendWqe { op: SendOp::Read as u8, ..wqe };
        assert_eq!(ctx().request(&port, &mrs, &read, 0), Err(WqeError::LocalKey(AccessError::NoAccess)));
        mrs[1] = Some(MemoryRegion { access: mr::access::LOCAL_WRITE, ..mr });
        let p = ctx().request(&port, &mrs, &read, 0xFF_FFFF).unwrap();
        assert_eq!((p.len(), p[0].desc.opcode, p[0].desc.payload_len, p[0].desc.psn), (1, OP_READ_REQUEST, 0, 0xFF_FFFF));
        assert_eq!(p[0].desc.reth, Reth { va: 0x9000, rkey: 7, dma_len: 2500 });
        assert!(p[0].desc.ack_req && !p[0].desc.se);
        // Atomics: 8 bytes, one request with the AtomicETH, LOCAL_WRITE on the local buffer.
        let atomic = SendWqe { length: 8, ..atomic };
        let p = ctx().request(&port, &mrs, &atomic, 3).unwrap();
        assert_eq!((p.len(), p[0].desc.opcode, p[0].desc.payload_len, p[0].desc.psn), (1, OP_FETCH_ADD, 0, 3));
        assert_eq!((p[0].desc.reth.va, p[0].desc.reth.rkey, p[0].desc.atomic), (0x9000, 7, AtomicArgs { value: 5, compare: 9 }));
        let cas = SendWqe { op: SendOp::CmpSwap as u8, ..atomic };
        assert_eq!(ctx().request(&port, &mrs, &cas, 3).unwrap()[0].desc.opcode, OP_CMP_SWAP);
        mrs[1] = Some(mr);
        assert_eq!(ctx().request(&port, &mrs, &cas, 0), Err(WqeError::LocalKey(AccessError::NoAccess)));
        // Inline: one packet whose payload is the WQE's bytes; no local key (none would pass).
        let inl = SendWqe { lkey: 0xDEAD, local_addr: 0, ..wqe }.with_inline(b"eight by").unwrap();
        let p = ctx().request(&port, &mrs, &inl, 9).unwrap();
        assert_eq!((p.len(), p[0].desc.opcode, p[0].desc.payload_len), (1, 0x0B, 8));
        assert_eq!(p[0].payload, Payload::Inline(*b"eight by\0\0\0\0\0\0\0\0"));
        assert_eq!(p[0].desc.reth, Reth { va: 0x9000, rkey: 7, dma_len: 8 });
        let long = SendWqe { length: INLINE_MAX as u32 + 1, ..inl };
        assert_eq!(ctx().request(&port, &mrs, &long, 0), Err(WqeError::Shape(ShapeError::InlineTooLong(17))));
        let read = SendWqe { op: SendOp::Read as u8, ..inl };
        assert_eq!(ctx().request(&port, &mrs, &read, 0), Err(WqeError::Shape(ShapeError::InlineOp(SendOp::Read))));
        let cas = SendWqe { flags: send_flags::INLINE, ..cas };
        assert_eq!(ctx().request(&port, &mrs, &cas, 0), Err(WqeError::Shape(ShapeError::InlineOp(SendOp::CmpSwap))));
        assert_eq!(ctx().request(&port, &mrs, &SendWqe { length: 12, ..cas }, 0), Err(WqeError::Shape(ShapeError::InlineOp(SendOp::CmpSwap))));
    }

    #[test]
    fn staging_registers_exist() {
        let b = regs::block("qp").unwrap();
        for (name, _) in ctx().registers() {
            assert!(b.reg(name).is_some_and(|r| r.access == regs::Access::Control), "qp.{name}");
        }
        let b = regs::block("port").unwrap();
        for (name, _) in PortAddress::default().registers() {
            assert!(b.reg(name).is_some(), "port.{name}");
        }
        assert_eq!(request_opcode(SendOp::Send, true, true), 0x04);
        assert_eq!(request_opcode(SendOp::SendImm, false, true), 0x03);
        assert_eq!(request_opcode(SendOp::Write, true, false), 0x06);
        assert_eq!(packet_count(4096, 12), 1);
        assert_eq!(packet_count(4097, 12), 2);
    }

    #[test]
    fn retry_word_puts_each_field_in_its_bits() {
        let q = QpContext { timeout: 0x15, retry_cnt: 6, rnr_retry: 5, max_rd_atomic: 3, max_dest_rd_atomic: 0, ..ctx() };
        assert_eq!(retry_word(&q), 0x15 | 6 << 8 | 5 << 12 | 3 << 16);
        assert_eq!(retry_word(&QpContext { max_dest_rd_atomic: 8, ..q }) >> 20, 8);
    }
}
