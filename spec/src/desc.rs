//! Host-memory formats shared by the driver and the card's queue engines: send and receive work
//! queue entries, completion queue entries, and the doorbell words.
//!
//! All fields are little-endian in host memory; the hardware puts them on the wire big-endian
//! where the wire has them (immediate data, keys, addresses). Queues are rings of fixed-size
//! entries in DMA memory, a power of two long. The requester reads send WQEs and the completer
//! writes CQEs; receive WQEs are specified here and not read by the card yet.
//!
//! Ownership of completion entries uses a phase bit: the card writes entries with `owner` set
//! to the pass count of the ring modulo 2 (1 on the first pass), so software knows an entry is
//! new without the card ever reading the consumer index first.

/// Send work queue entry size.
pub const SEND_WQE_LEN: usize = 64;
/// Receive work queue entry size.
pub const RECV_WQE_LEN: usize = 32;
/// Completion queue entry size.
pub const CQE_LEN: usize = 32;

/// Byte offsets of the receive WQE's fields (little-endian; the responder slices them out of
/// the 32-byte entry at these offsets).
pub mod recv_wqe {
    pub const WR_ID: usize = 0;
    pub const ADDR: usize = 8;
    pub const LENGTH: usize = 16;
    pub const LKEY: usize = 20;
}

/// Byte offsets of the send WQE's fields (little-endian; the requester slices them out
/// of the 64-byte entry at these offsets).
pub mod send_wqe {
    pub const WR_ID: usize = 0;
    pub const OP: usize = 8;
    pub const FLAGS: usize = 9;
    pub const IMM: usize = 12;
    pub const LOCAL_ADDR: usize = 16;
    pub const LENGTH: usize = 24;
    pub const LKEY: usize = 28;
    pub const REMOTE_ADDR: usize = 32;
    pub const RKEY: usize = 40;
    /// Atomics: the swap value (COMPARE & SWAP) or the addend (FETCH & ADD).
    pub const SWAP_ADD: usize = 48;
    /// COMPARE & SWAP: the value compared with the remote word.
    pub const COMPARE: usize = 56;
    /// A WQE with `send_flags::INLINE` carries its payload here (over the atomic operands,
    /// which a SEND or WRITE does not use), at most [`INLINE_MAX`](super::INLINE_MAX) bytes.
    pub const INLINE_DATA: usize = 48;
}

/// Largest payload a send WQE carries inline: the 16 bytes of the atomic operands.
pub const INLINE_MAX: usize = 16;

/// What a send work request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SendOp {
    Send = 0,
    SendImm = 1,
    Write = 2,
    WriteImm = 3,
    Read = 4,
    /// COMPARE & SWAP of the 8-byte remote word; the original value lands in the local buffer.
    CmpSwap = 5,
    /// FETCH & ADD of the 8-byte remote word; the original value lands in the local buffer.
    FetchAdd = 6,
}

impl SendOp {
    pub fn from_code(c: u8) -> Option<SendOp> {
        [SendOp::Send, SendOp::SendImm, SendOp::Write, SendOp::WriteImm, SendOp::Read, SendOp::CmpSwap, SendOp::FetchAdd].into_iter().find(|o| *o as u8 == c)
    }
    pub fn is_atomic(self) -> bool {
        matches!(self, SendOp::CmpSwap | SendOp::FetchAdd)
    }
    /// Operations that name remote memory (a RETH on the wire).
    pub fn is_rdma(self) -> bool {
        matches!(self, SendOp::Write | SendOp::WriteImm | SendOp::Read)
    }
    pub fn has_imm(self) -> bool {
        matches!(self, SendOp::SendImm | SendOp::WriteImm)
    }
}

/// Send WQE flags.
pub mod send_flags {
    /// Write a completion when the request completes successfully (errors always complete).
    pub const SIGNALED: u8 = 1 << 0;
    /// Set the solicited-event bit on the last packet.
    pub const SOLICITED: u8 = 1 << 1;
    /// The payload is in the WQE (`send_wqe::INLINE_DATA`, `length` <= `INLINE_MAX`), copied
    /// there when the request was posted: the card reads no buffer and checks no local key
    /// (as `IBV_SEND_INLINE`). SEND and RDMA WRITE only.
    pub const INLINE: u8 = 1 << 2;
}

/// A send work queue entry (one scatter/gather element).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SendWqe {
    pub wr_id: u64,
    pub op: u8,
    pub flags: u8,
    pub imm: u32,
    pub local_addr: u64,
    pub length: u32,
    pub lkey: u32,
    pub remote_addr: u64,
    pub rkey: u32,
    pub swap_add: u64,
    pub compare: u64,
}

/// A receive work queue entry (one scatter/gather element).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecvWqe {
    pub wr_id: u64,
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}

/// Completion status, as `ibv_wc_status` orders the ones this card reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum CqStatus {
    Success = 0,
    /// The local buffer is shorter than the data (receive), or a send is longer than a message.
    LocalLength = 1,
    /// The work request cannot be carried out: an opcode the card does not perform, or its
    /// WQE could not be read.
    LocalQpOperation = 2,
    /// The lkey is unknown, of another PD, or lacks the access.
    LocalProtection = 4,
    /// The responder refused the remote key, range or access (NAK remote access error).
    RemoteAccess = 10,
    /// The responder found the request invalid (NAK invalid request).
    RemoteInvalidRequest = 9,
    /// The responder could not carry the request out (NAK remote operational error).
    RemoteOperational = 11,
    /// Transport retries (local ACK timeouts, sequence NAKs) exhausted: `retry_cnt`.
    RetryExceeded = 12,
    /// RNR NAK retries exhausted: `rnr_retry`.
    RnrRetryExceeded = 13,
    /// The request was flushed because the QP entered the error state.
    Flushed = 5,
}

impl CqStatus {
    pub fn from_code(c: u8) -> Option<CqStatus> {
        use CqStatus::*;
        [Success, LocalLength, LocalQpOperation, LocalProtection, RemoteAccess, RemoteInvalidRequest, RemoteOperational, RetryExceeded, RnrRetryExceeded, Flushed]
            .into_iter()
            .find(|s| *s as u8 == c)
    }
}

/// What completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum CqOp {
    Send = 0,
    Write = 1,
    Read = 2,
    Recv = 3,
    /// A receive consumed by an RDMA WRITE with immediate (no data in the receive buffer).
    RecvRdmaImm = 4,
    CmpSwap = 5,
    FetchAdd = 6,
}

/// CQE flags.
pub mod cqe_flags {
    /// `imm` holds immediate data.
    pub const IMM: u8 = 1 << 0;
}

/// Byte offsets of the CQE's fields (little-endian; the completer packs them at these
/// offsets). QPN is 24 bits in a 32-bit field; byte 23 and bytes 26 ... 30 are zero; the
/// owner (phase) bit is bit 0 of the last byte, so it lands with the entry's last write.
pub mod cqe {
    pub const WR_ID: usize = 0;
    pub const BYTE_LEN: usize = 8;
    pub const IMM: usize = 12;
    pub const QPN: usize = 16;
    pub const OP: usize = 20;
    pub const STATUS: usize = 21;
    pub const FLAGS: usize = 22;
    pub const WQE_INDEX: usize = 24;
    pub const OWNER: usize = 31;
}

/// A completion queue entry. Send completions carry the WQE's index in the send queue
/// (`wqe_index`, counting modulo 2^16 from 0 at the QP's commit) and leave `wr_id`, `op` and
/// `byte_len` to the driver, which knows what it posted at that index (as mlx5 CQEs do).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cqe {
    pub wr_id: u64,
    pub byte_len: u32,
    pub imm: u32,
    pub qpn: u32,
    pub op: u8,
    pub status: u8,
    pub flags: u8,
    pub wqe_index: u16,
    /// Phase bit (bit 0): see the module comment.
    pub owner: u8,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl SendWqe {
    /// The inline payload area (`send_flags::INLINE`): the atomic operands' 16 bytes.
    pub fn inline_data(&self) -> [u8; INLINE_MAX] {
        let mut d = [0; INLINE_MAX];
        d[..8].copy_from_slice(&self.swap_add.to_le_bytes());
        d[8..].copy_from_slice(&self.compare.to_le_bytes());
        d
    }

    /// Carry `data` inline: the flag, the length and the bytes (the rest of the area zero).
    /// `None` when it does not fit.
    pub fn with_inline(mut self, data: &[u8]) -> Option<SendWqe> {
        if data.len() > INLINE_MAX {
            return None;
        }
        let mut d = [0; INLINE_MAX];
        d[..data.len()].copy_from_slice(data);
        self.swap_add = u64::from_le_bytes(d[..8].try_into().expect("8 bytes"));
        self.compare = u64::from_le_bytes(d[8..].try_into().expect("8 bytes"));
        self.flags |= send_flags::INLINE;
        self.length = data.len() as u32;
        Some(self)
    }

    pub fn pack(&self) -> [u8; SEND_WQE_LEN] {
        use send_wqe::*;
        let mut b = [0u8; SEND_WQE_LEN];
        b[WR_ID..WR_ID + 8].copy_from_slice(&self.wr_id.to_le_bytes());
        b[OP] = self.op;
        b[FLAGS] = self.flags;
        b[IMM..IMM + 4].copy_from_slice(&self.imm.to_le_bytes());
        b[LOCAL_ADDR..LOCAL_ADDR + 8].copy_from_slice(&self.local_addr.to_le_bytes());
        b[LENGTH..LENGTH + 4].copy_from_slice(&self.length.to_le_bytes());
        b[LKEY..LKEY + 4].copy_from_slice(&self.lkey.to_le_bytes());
        b[REMOTE_ADDR..REMOTE_ADDR + 8].copy_from_slice(&self.remote_addr.to_le_bytes());
        b[RKEY..RKEY + 4].copy_from_slice(&self.rkey.to_le_bytes());
        b[SWAP_ADD..SWAP_ADD + 8].copy_from_slice(&self.swap_add.to_le_bytes());
        b[COMPARE..COMPARE + 8].copy_from_slice(&self.compare.to_le_bytes());
        b
    }

    pub fn parse(b: &[u8; SEND_WQE_LEN]) -> SendWqe {
        use send_wqe::*;
        SendWqe {
            wr_id: u64_at(b, WR_ID),
            op: b[OP],
            flags: b[FLAGS],
            imm: u32_at(b, IMM),
            local_addr: u64_at(b, LOCAL_ADDR),
            length: u32_at(b, LENGTH),
            lkey: u32_at(b, LKEY),
            remote_addr: u64_at(b, REMOTE_ADDR),
            rkey: u32_at(b, RKEY),
            swap_add: u64_at(b, SWAP_ADD),
            compare: u64_at(b, COMPARE),
        }
    }
}

impl RecvWqe {
    pub fn pack(&self) -> [u8; RECV_WQE_LEN] {
        use recv_wqe::*;
        let mut b = [0u8; RECV_WQE_LEN];
        b[WR_ID..WR_ID + 8].copy_from_slice(&self.wr_id.to_le_bytes());
        b[ADDR..ADDR + 8].copy_from_slice(&self.addr.to_le_bytes());
        b[LENGTH..LENGTH + 4].copy_from_slice(&self.length.to_le_bytes());
        b[LKEY..LKEY + 4].copy_from_slice(&self.lkey.to_le_bytes());
        b
    }

    pub fn parse(b: &[u8; RECV_WQE_LEN]) -> RecvWqe {
        use recv_wqe::*;
        RecvWqe { wr_id: u64_at(b, WR_ID), addr: u64_at(b, ADDR), length: u32_at(b, LENGTH), lkey: u32_at(b, LKEY) }
    }
}

impl Cqe {
    pub fn pack(&self) -> [u8; CQE_LEN] {
        use cqe::*;
        let mut b = [0u8; CQE_LEN];
        b[WR_ID..WR_ID + 8].copy_from_slice(&self.wr_id.to_le_bytes());
        b[BYTE_LEN..BYTE_LEN + 4].copy_from_slice(&self.byte_len.to_le_bytes());
        b[IMM..IMM + 4].copy_from_slice(&self.imm.to_le_bytes());
        b[QPN..QPN + 4].copy_from_slice(&(self.qpn & 0xFF_FFFF).to_le_bytes());
        b[OP] = self.op;
        b[STATUS] = self.status;
        b[FLAGS] = self.flags;
        b[WQE_INDEX..WQE_INDEX + 2].copy_from_slice(&self.wqe_index.to_le_bytes());
        b[OWNER] = self.owner & 1;
        b
    }

    pub fn parse(b: &[u8; CQE_LEN]) -> Cqe {
        use cqe::*;
        Cqe {
            wr_id: u64_at(b, WR_ID),
            byte_len: u32_at(b, BYTE_LEN),
            imm: u32_at(b, IMM),
            qpn: u32_at(b, QPN) & 0xFF_FFFF,
            op: b[OP],
            status: b[STATUS],
            flags: b[FLAGS],
            wqe_index: u16::from_le_bytes([b[WQE_INDEX], b[WQE_INDEX + 1]]),
            owner: b[OWNER] & 1,
        }
    }
}

/// A doorbell write: queue index in the top 16 bits, the new producer (send / receive queue) or
/// consumer (completion queue) index in the low 16. Indexes count entries modulo 2^16, so a
/// ring holds at most 2^15 entries and full and empty differ.
pub fn doorbell(queue: u16, index: u16) -> u32 {
    (queue as u32) << 16 | index as u32
}

/// The (queue, index) of a doorbell word.
pub fn parse_doorbell(word: u32) -> (u16, u16) {
    ((word >> 16) as u16, word as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let w = SendWqe {
            wr_id: 0x0123_4567_89AB_CDEF,
            op: SendOp::WriteImm as u8,
            flags: send_flags::SIGNALED,
            imm: 0xDEAD_BEEF,
            local_addr: 0x1_0000_0040,
            length: 65536,
            lkey: 0x100,
            remote_addr: 0x2_0000_0003,
            rkey: 0x200,
            swap_add: 0xFEDC_BA98_7654_3210,
            compare: 0x1111_2222_3333_4444,
        };
        assert_eq!(SendWqe::parse(&w.pack()), w);
        let r = RecvWqe { wr_id: 7, addr: 0x3000, length: 4096, lkey: 9 };
        assert_eq!(RecvWqe::parse(&r.pack()), r);
        let c = Cqe { wr_id: 9, byte_len: 1, imm: 2, qpn: 0x12_3456, op: CqOp::Recv as u8, status: 10, flags: 1, wqe_index: 0xBEEF, owner: 1 };
        assert_eq!(Cqe::parse(&c.pack()), c);
        assert_eq!(c.pack()[31], 1, "the owner bit is in the entry's last byte");
        assert_eq!(parse_doorbell(doorbell(0x1234, 0xFFFF)), (0x1234, 0xFFFF));
        assert_eq!(CqStatus::from_code(10), Some(CqStatus::RemoteAccess));
        assert_eq!(SendOp::from_code(3), Some(SendOp::WriteImm));
        assert_eq!(SendOp::from_code(6), Some(SendOp::FetchAdd));
        assert!(SendOp::from_code(7).is_none());
    }

    /// Every field where the layout says, byte by byte: a change to an offset table breaks
    /// this test, not silently the card (the RTL takes its offsets from the same tables).
    #[test]
    fn layouts_are_pinned() {
        let r = RecvWqe { wr_id: 0x0807_0605_0403_0201, addr: 0x100F_0E0D_0C0B_0A09, length: 0x1413_1211, lkey: 0x1817_1615 };
        let want: Vec<u8> = (1..=24).chain([0; 8]).collect();
        assert_eq!(r.pack().to_vec(), want);
        let c = Cqe {
            wr_id: 0x0807_0605_0403_0201,
            byte_len: 0x0C0B_0A09,
            imm: 0x100F_0E0D,
            qpn: 0x0013_1211,
            op: 0x15,
            status: 0x16,
            flags: 0x17,
            wqe_index: 0x1A19,
            owner: 1,
        };
        let mut want: Vec<u8> = (1..=32).collect();
        for zero in [19, 23, 26, 27, 28, 29, 30] {
            want[zero] = 0;
        }
        want[31] = 1;
        assert_eq!(c.pack().to_vec(), want);
        let w = SendWqe {
            wr_id: 0x0807_0605_0403_0201,
            op: 0x09,
            flags: 0x0A,
            imm: 0x100F_0E0D,
            local_addr: 0x1817_1615_1413_1211,
            length: 0x1C1B_1A19,
            lkey: 0x201F_1E1D,
            remote_addr: 0x2827_2625_2423_2221,
            rkey: 0x2C2B_2A29,
            swap_add: 0x3837_3635_3433_3231,
            compare: 0x403F_3E3D_3C3B_3A39,
        };
        let mut want: Vec<u8> = (1..=64).collect();
        want[44..48].fill(0);
        want[10] = 0;
        want[11] = 0;
        assert_eq!(w.pack().to_vec(), want);
        // Inline data: byte i of the payload is byte INLINE_DATA + i of the entry.
        let data: Vec<u8> = (0xA0..0xA0 + INLINE_MAX as u8).collect();
        let inl = w.with_inline(&data).expect("fits");
        assert_eq!(&inl.pack()[send_wqe::INLINE_DATA..], &data[..]);
        assert_eq!(inl.pack()[send_wqe::FLAGS], 0x0A | send_flags::INLINE);
        assert_eq!(inl.length, INLINE_MAX as u32);
        assert_eq!(SendWqe::parse(&inl.pack()).inline_data().to_vec(), data);
        let short = w.with_inline(&data[..5]).expect("fits");
        assert_eq!(&short.pack()[48..64], &[0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(w.with_inline(&[0; INLINE_MAX + 1]).is_none());
    }
}
