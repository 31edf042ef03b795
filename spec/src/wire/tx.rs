//! The transmit packet descriptor: what the transmit engine needs to build one packet, and the
//! reference model of that engine ([`TxDescriptor::packet`]).
//!
//! The engine builds the extended headers the opcode table gives for the opcode, for the
//! opcodes an RC requester or responder sends ([`tx_ext`]). Fields a
//! sender does not choose are fixed: IPv4 ID 0 with Don't Fragment (RoCE v2 packets are never
//! fragmented), UDP checksum 0 (A17.4.2), BTH MigReq 0, TVer 0, FECN/BECN 0 (set by switches),
//! IPv6 next header UDP.

use super::eth::{EthHeader, Vlan};
use super::ib::{Aeth, AtomicEth, Bth, Ext, Reth};
use super::ip::{Ipv4Header, Ipv6Header};
use super::opcode::{ExtHeader, OPCODES};
use super::packet::{IpHeader, RocePacket};

/// IPv4 flags of every packet the NIC sends: Don't Fragment.
pub const IPV4_FLAGS_DF: u8 = 0b010;

/// The extended headers the transmit engine builds for an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TxExt {
    pub reth: bool,
    pub imm: bool,
    pub aeth: bool,
    /// AtomicETH (CmpSwap, FetchAdd): RETH's VA and R_Key, then the two operands.
    pub atomic: bool,
    /// AtomicAckETH after the AETH (ATOMIC Acknowledge): the original value.
    pub atomic_ack: bool,
}

/// The extended headers the transmit engine builds for an opcode, or `None` for opcodes it does
/// not send (invalidate, UD, CNP).
pub fn tx_ext(code: u8) -> Option<TxExt> {
    let op = OPCODES.iter().find(|o| o.code == code)?;
    let none = TxExt::default();
    match op.ext {
        [] => Some(none),
        [ExtHeader::Reth] => Some(TxExt { reth: true, ..none }),
        [ExtHeader::ImmDt] => Some(TxExt { imm: true, ..none }),
        [ExtHeader::Reth, ExtHeader::ImmDt] => Some(TxExt { reth: true, imm: true, ..none }),
        [ExtHeader::Aeth] => Some(TxExt { aeth: true, ..none }),
        [ExtHeader::Aeth, ExtHeader::AtomicAckEth] => Some(TxExt { aeth: true, atomic_ack: true, ..none }),
        [ExtHeader::AtomicEth] => Some(TxExt { atomic: true, ..none }),
        _ => None,
    }
}

/// Opcodes the transmit engine builds, in table order.
pub fn tx_opcodes() -> Vec<u8> {
    OPCODES.iter().map(|o| o.code).filter(|&c| tx_ext(c).is_some()).collect()
}

/// IP addresses of a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IpPair {
    V4 { src: [u8; 4], dst: [u8; 4] },
    V6 { src: [u8; 16], dst: [u8; 16] },
}

/// The atomic operands of a descriptor: CmpSwap's swap value or FetchAdd's addend and
/// CmpSwap's compare value; for an ATOMIC Acknowledge, `value` is the original value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AtomicArgs {
    pub value: u64,
    pub compare: u64,
}

/// One packet for the transmit engine; the payload travels beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxDescriptor {
    pub eth_dst: [u8; 6],
    pub eth_src: [u8; 6],
    pub vlan: Option<Vlan>,
    pub ip: IpPair,
    pub dscp: u8,
    pub ecn: u8,
    /// IPv4 TTL or IPv6 hop limit.
    pub ttl: u8,
    /// IPv6 only.
    pub flow_label: u32,
    pub udp_src_port: u16,
    pub opcode: u8,
    pub se: bool,
    pub pkey: u16,
    pub dest_qp: u32,
    pub ack_req: bool,
    pub psn: u32,
    /// Used when the opcode carries a RETH.
    pub reth: Reth,
    /// Used when the opcode carries an ImmDt.
    pub imm: u32,
    /// Used when the opcode carries an AETH.
    pub aeth: Aeth,
    /// Used when the opcode carries an AtomicETH (with `reth`'s VA and R_Key) or an
    /// AtomicAckETH (`value`).
    pub atomic: AtomicArgs,
    pub payload_len: u16,
}

impl TxDescriptor {
    /// The packet the engine sends for this descriptor and payload (`payload.len()` must be
    /// `payload_len`), or `None` for an opcode the engine does not build.
    pub fn packet(&self, payload: &[u8]) -> Option<RocePacket> {
        let ext_kind = tx_ext(self.opcode)?;
        let eth = EthHeader { dst: self.eth_dst, src: self.eth_src, vlan: self.vlan, ethertype: 0 };
        let ip = match self.ip {
            IpPair::V4 { src, dst } => IpHeader::V4(Ipv4Header {
                dscp: self.dscp,
                ecn: self.ecn,
                id: 0,
                flags: IPV4_FLAGS_DF,
                ttl: self.ttl,
                src,
                dst,
                ..Default::default()
            }),
            IpPair::V6 { src, dst } => IpHeader::V6(Ipv6Header {
                dscp: self.dscp,
                ecn: self.ecn,
                flow_label: self.flow_label,
                hop_limit: self.ttl,
                src,
                dst,
                ..Default::default()
            }),
        };
        let bth = Bth {
            opcode: self.opcode,
            se: self.se,
            pkey: self.pkey,
            dest_qp: self.dest_qp,
            ack_req: self.ack_req,
            psn: self.psn,
            ..Default::default()
        };
        let mut ext = Vec::new();
        if ext_kind.reth {
            ext.push(Ext::Reth(self.reth));
        }
        if ext_kind.imm {
            ext.push(Ext::ImmDt(self.imm));
        }
        if ext_kind.aeth {
            ext.push(Ext::Aeth(self.aeth));
        }
        if ext_kind.atomic {
            let (va, rkey) = (self.reth.va, self.reth.rkey);
            ext.push(Ext::AtomicEth(AtomicEth { va, rkey, swap_add: self.atomic.value, compare: self.atomic.compare }));
        }
        if ext_kind.atomic_ack {
            ext.push(Ext::AtomicAckEth(self.atomic.value));
        }
        let mut p = RocePacket::new(eth, ip, bth, ext, payload.to_vec());
        p.udp.src_port = self.udp_src_port;
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_builds_the_rc_opcodes() {
        // SEND, WRITE, READ request/response, ACK, ATOMIC Acknowledge, CmpSwap, FetchAdd.
        assert_eq!(tx_opcodes(), (0x00..=0x14).collect::<Vec<u8>>());
    }
}
