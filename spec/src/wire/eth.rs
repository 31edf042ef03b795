//! Ethernet II and IEEE 802.1Q.

use super::{be16, need, WireError};

pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_IPV6: u16 = 0x86DD;
pub const ETHERTYPE_VLAN: u16 = 0x8100;
/// Ethernet header length without and with one 802.1Q tag.
pub const ETH_LEN: usize = 14;
pub const ETH_VLAN_LEN: usize = 18;
/// Byte offset of the EtherType (or of the 802.1Q TPID when tagged).
pub const ETHERTYPE_OFF: usize = 12;
/// Byte offset of the inner EtherType behind one 802.1Q tag.
pub const INNER_ETHERTYPE_OFF: usize = 16;
/// Byte offset of the 802.1Q tag control information.
pub const VLAN_TCI_OFF: usize = 14;

/// An 802.1Q tag: priority code point, drop eligible indicator and VLAN ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Vlan {
    pub pcp: u8,
    pub dei: bool,
    pub vid: u16,
}

impl Vlan {
    /// The tag control information word: PCP (3 bits), DEI, VID (12 bits).
    pub fn tci(&self) -> u16 {
        ((self.pcp as u16 & 7) << 13) | ((self.dei as u16) << 12) | (self.vid & 0xFFF)
    }
}

/// Ethernet II header with an optional 802.1Q tag. `ethertype` is the inner type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EthHeader {
    pub dst: [u8; 6],
    pub src: [u8; 6],
    pub vlan: Option<Vlan>,
    pub ethertype: u16,
}

impl EthHeader {
    /// Header length on the wire: 14, or 18 with a VLAN tag.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        if self.vlan.is_some() {
            ETH_VLAN_LEN
        } else {
            ETH_LEN
        }
    }

    pub fn pack(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.dst);
        out.extend_from_slice(&self.src);
        if let Some(v) = self.vlan {
            out.extend_from_slice(&ETHERTYPE_VLAN.to_be_bytes());
            out.extend_from_slice(&v.tci().to_be_bytes());
        }
        out.extend_from_slice(&self.ethertype.to_be_bytes());
    }

    pub fn parse(b: &[u8]) -> Result<(Self, usize), WireError> {
        need(b, ETH_LEN)?;
        let mut h = EthHeader {
            dst: b[0..6].try_into().expect("6"),
            src: b[6..12].try_into().expect("6"),
            vlan: None,
            ethertype: be16(&b[ETHERTYPE_OFF..]),
        };
        if h.ethertype == ETHERTYPE_VLAN {
            need(b, ETH_VLAN_LEN)?;
            let tci = be16(&b[VLAN_TCI_OFF..]);
            h.vlan = Some(Vlan { pcp: (tci >> 13) as u8, dei: tci & 0x1000 != 0, vid: tci & 0xFFF });
            h.ethertype = be16(&b[INNER_ETHERTYPE_OFF..]);
            Ok((h, ETH_VLAN_LEN))
        } else {
            Ok((h, ETH_LEN))
        }
    }
}
