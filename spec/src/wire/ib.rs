//! InfiniBand Base Transport Header and the extended transport headers (IBTA Vol 1 §9.2–9.3).

use super::{be16, be24, be32, be64, need, put24, WireError};

pub const BTH_LEN: usize = 12;
pub const RETH_LEN: usize = 16;
pub const AETH_LEN: usize = 4;
pub const IMMDT_LEN: usize = 4;
pub const IETH_LEN: usize = 4;
pub const DETH_LEN: usize = 8;
pub const ATOMIC_ETH_LEN: usize = 28;
pub const ATOMIC_ACK_ETH_LEN: usize = 8;
/// A RoCE v2 CNP carries 16 reserved bytes after the BTH (Annex A17.9.3).
pub const CNP_RESERVED_LEN: usize = 16;
pub const ICRC_LEN: usize = 4;

/// Byte offsets inside the BTH. Byte 1 holds SE (bit 7), M (6), PadCnt (5:4), TVer (3:0);
/// byte 4 FECN (7) and BECN (6); byte 8 AckReq (7).
pub const BTH_OPCODE_OFF: usize = 0;
pub const BTH_FLAGS_OFF: usize = 1;
pub const BTH_PKEY_OFF: usize = 2;
pub const BTH_ECN_OFF: usize = 4;
pub const BTH_DEST_QP_OFF: usize = 5;
pub const BTH_ACK_REQ_OFF: usize = 8;
pub const BTH_PSN_OFF: usize = 9;
/// Byte offsets inside RETH and AtomicETH (which share VA and R_Key).
pub const RETH_VA_OFF: usize = 0;
pub const RETH_RKEY_OFF: usize = 8;
pub const RETH_DMA_LEN_OFF: usize = 12;
pub const ATOMIC_SWAP_ADD_OFF: usize = 12;
pub const ATOMIC_COMPARE_OFF: usize = 20;
/// Byte offsets inside AETH and DETH.
pub const AETH_SYNDROME_OFF: usize = 0;
pub const AETH_MSN_OFF: usize = 1;
pub const DETH_QKEY_OFF: usize = 0;
pub const DETH_SRC_QP_OFF: usize = 5;

/// Base Transport Header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Bth {
    pub opcode: u8,
    /// Solicited event.
    pub se: bool,
    /// Migration state.
    pub mig: bool,
    /// Bytes of pad after the payload (0..=3) that make it a multiple of 4.
    pub pad: u8,
    /// Transport header version; 0 is the only defined value.
    pub tver: u8,
    pub pkey: u16,
    /// Forward explicit congestion notification (RoCE v2 keeps it 0; ECN lives in IP).
    pub fecn: bool,
    pub becn: bool,
    pub dest_qp: u32,
    /// Acknowledge request.
    pub ack_req: bool,
    pub psn: u32,
}

impl Bth {
    pub fn pack(&self, out: &mut Vec<u8>) {
        out.push(self.opcode);
        out.push(((self.se as u8) << 7) | ((self.mig as u8) << 6) | ((self.pad & 3) << 4) | (self.tver & 0xF));
        out.extend_from_slice(&self.pkey.to_be_bytes());
        out.push(((self.fecn as u8) << 7) | ((self.becn as u8) << 6));
        put24(out, self.dest_qp);
        out.push((self.ack_req as u8) << 7);
        put24(out, self.psn);
    }

    pub fn parse(b: &[u8]) -> Result<(Self, usize), WireError> {
        need(b, BTH_LEN)?;
        let h = Bth {
            opcode: b[BTH_OPCODE_OFF],
            se: b[BTH_FLAGS_OFF] & 0x80 != 0,
            mig: b[BTH_FLAGS_OFF] & 0x40 != 0,
            pad: (b[BTH_FLAGS_OFF] >> 4) & 3,
            tver: b[BTH_FLAGS_OFF] & 0xF,
            pkey: be16(&b[BTH_PKEY_OFF..]),
            fecn: b[BTH_ECN_OFF] & 0x80 != 0,
            becn: b[BTH_ECN_OFF] & 0x40 != 0,
            dest_qp: be24(&b[BTH_DEST_QP_OFF..]),
            ack_req: b[BTH_ACK_REQ_OFF] & 0x80 != 0,
            psn: be24(&b[BTH_PSN_OFF..]),
        };
        Ok((h, BTH_LEN))
    }
}

/// RDMA Extended Transport Header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reth {
    pub va: u64,
    pub rkey: u32,
    pub dma_len: u32,
}

/// ACK Extended Transport Header: syndrome (ACK / RNR NAK / NAK with code) and MSN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Aeth {
    pub syndrome: u8,
    pub msn: u32,
}

/// Datagram Extended Transport Header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Deth {
    pub qkey: u32,
    pub src_qp: u32,
}

/// Atomic Extended Transport Header (CmpSwap, FetchAdd).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AtomicEth {
    pub va: u64,
    pub rkey: u32,
    pub swap_add: u64,
    pub compare: u64,
}

/// One extended header with its contents, in the order the opcode table lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ext {
    Reth(Reth),
    Aeth(Aeth),
    ImmDt(u32),
    Ieth(u32),
    Deth(Deth),
    AtomicEth(AtomicEth),
    AtomicAckEth(u64),
    CnpReserved,
}

impl Ext {
    pub fn pack(&self, out: &mut Vec<u8>) {
        match *self {
            Ext::Reth(r) => {
                out.extend_from_slice(&r.va.to_be_bytes());
                out.extend_from_slice(&r.rkey.to_be_bytes());
                out.extend_from_slice(&r.dma_len.to_be_bytes());
            }
            Ext::Aeth(a) => {
                out.push(a.syndrome);
                put24(out, a.msn);
            }
            Ext::ImmDt(v) | Ext::Ieth(v) => out.extend_from_slice(&v.to_be_bytes()),
            Ext::Deth(d) => {
                out.extend_from_slice(&d.qkey.to_be_bytes());
                out.push(0);
                put24(out, d.src_qp);
            }
            Ext::AtomicEth(a) => {
                out.extend_from_slice(&a.va.to_be_bytes());
                out.extend_from_slice(&a.rkey.to_be_bytes());
                out.extend_from_slice(&a.swap_add.to_be_bytes());
                out.extend_from_slice(&a.compare.to_be_bytes());
            }
            Ext::AtomicAckEth(v) => out.extend_from_slice(&v.to_be_bytes()),
            Ext::CnpReserved => out.extend_from_slice(&[0; CNP_RESERVED_LEN]),
        }
    }

    /// Parse the extended header of `kind` from the start of `b`.
    pub fn parse(kind: super::ExtHeader, b: &[u8]) -> Result<(Self, usize), WireError> {
        use super::ExtHeader as K;
        let len = kind.len();
        need(b, len)?;
        let ext = match kind {
            K::Reth => Ext::Reth(Reth {
                va: be64(&b[RETH_VA_OFF..]),
                rkey: be32(&b[RETH_RKEY_OFF..]),
                dma_len: be32(&b[RETH_DMA_LEN_OFF..]),
            }),
            K::Aeth => Ext::Aeth(Aeth { syndrome: b[AETH_SYNDROME_OFF], msn: be24(&b[AETH_MSN_OFF..]) }),
            K::ImmDt => Ext::ImmDt(be32(b)),
            K::Ieth => Ext::Ieth(be32(b)),
            K::Deth => Ext::Deth(Deth { qkey: be32(&b[DETH_QKEY_OFF..]), src_qp: be24(&b[DETH_SRC_QP_OFF..]) }),
            K::AtomicEth => Ext::AtomicEth(AtomicEth {
                va: be64(&b[RETH_VA_OFF..]),
                rkey: be32(&b[RETH_RKEY_OFF..]),
                swap_add: be64(&b[ATOMIC_SWAP_ADD_OFF..]),
                compare: be64(&b[ATOMIC_COMPARE_OFF..]),
            }),
            K::AtomicAckEth => Ext::AtomicAckEth(be64(b)),
            K::CnpReserved => Ext::CnpReserved,
        };
        Ok((ext, len))
    }

    pub fn kind(&self) -> super::ExtHeader {
        use super::ExtHeader as K;
        match self {
            Ext::Reth(_) => K::Reth,
            Ext::Aeth(_) => K::Aeth,
            Ext::ImmDt(_) => K::ImmDt,
            Ext::Ieth(_) => K::Ieth,
            Ext::Deth(_) => K::Deth,
            Ext::AtomicEth(_) => K::AtomicEth,
            Ext::AtomicAckEth(_) => K::AtomicAckEth,
            Ext::CnpReserved => K::CnpReserved,
        }
    }
}
