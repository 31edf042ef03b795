//! IPv4 (without options) and IPv6 (without extension headers) as RoCE v2 carries them.

use super::{be16, be32, need, WireError};

pub const IPV4_LEN: usize = 20;
pub const IPV6_LEN: usize = 40;
pub const PROTO_UDP: u8 = 17;
/// Byte offsets of IPv4 header fields.
pub const IPV4_VERSION_IHL_OFF: usize = 0;
pub const IPV4_TOS_OFF: usize = 1;
pub const IPV4_TOTAL_LEN_OFF: usize = 2;
pub const IPV4_FLAGS_OFF: usize = 6;
pub const IPV4_TTL_OFF: usize = 8;
pub const IPV4_PROTOCOL_OFF: usize = 9;
pub const IPV4_SRC_OFF: usize = 12;
pub const IPV4_DST_OFF: usize = 16;
/// Byte offsets of IPv6 header fields (the first 32-bit word holds version, traffic class
/// and flow label).
pub const IPV6_WORD0_OFF: usize = 0;
pub const IPV6_PAYLOAD_LEN_OFF: usize = 4;
pub const IPV6_NEXT_HEADER_OFF: usize = 6;
pub const IPV6_HOP_LIMIT_OFF: usize = 7;
pub const IPV6_SRC_OFF: usize = 8;
pub const IPV6_DST_OFF: usize = 24;

/// IPv4 header. `ihl` is in 32-bit words; RoCE v2 traffic uses 5 (no options).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv4Header {
    pub ihl: u8,
    pub dscp: u8,
    pub ecn: u8,
    pub total_len: u16,
    pub id: u16,
    pub flags: u8,
    pub frag_offset: u16,
    pub ttl: u8,
    pub protocol: u8,
    pub checksum: u16,
    pub src: [u8; 4],
    pub dst: [u8; 4],
}

impl Default for Ipv4Header {
    fn default() -> Self {
        Ipv4Header {
            ihl: 5,
            dscp: 0,
            ecn: 0,
            total_len: 20,
            id: 0,
            flags: 0b010, // don't fragment
            frag_offset: 0,
            ttl: 64,
            protocol: PROTO_UDP,
            checksum: 0,
            src: [0; 4],
            dst: [0; 4],
        }
    }
}

/// Internet checksum (RFC 1071) over a header; 0 when a header with its checksum is valid.
pub fn internet_checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for pair in bytes.chunks(2) {
        let word = if pair.len() == 2 { be16(pair) } else { (pair[0] as u16) << 8 };
        sum += word as u32;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

impl Ipv4Header {
    /// Append the header as given (checksum field included verbatim).
    pub fn pack(&self, out: &mut Vec<u8>) {
        out.push(0x40 | (self.ihl & 0xF));
        out.push((self.dscp << 2) | (self.ecn & 3));
        out.extend_from_slice(&self.total_len.to_be_bytes());
        out.extend_from_slice(&self.id.to_be_bytes());
        let ff = ((self.flags as u16 & 7) << 13) | (self.frag_offset & 0x1FFF);
        out.extend_from_slice(&ff.to_be_bytes());
        out.push(self.ttl);
        out.push(self.protocol);
        out.extend_from_slice(&self.checksum.to_be_bytes());
        out.extend_from_slice(&self.src);
        out.extend_from_slice(&self.dst);
    }

    /// This header with its checksum field computed.
    pub fn with_checksum(mut self) -> Self {
        self.checksum = 0;
        let mut b = Vec::with_capacity(IPV4_LEN);
        self.pack(&mut b);
        self.checksum = internet_checksum(&b);
        self
    }

    /// Parse the 20-byte base header. Options (IHL > 5) are reported through `ihl`, not parsed.
    pub fn parse(b: &[u8]) -> Result<(Self, usize), WireError> {
        need(b, IPV4_LEN)?;
        if b[0] >> 4 != 4 {
            return Err(WireError::BadField("ipv4.version"));
        }
        let ff = be16(&b[IPV4_FLAGS_OFF..]);
        let h = Ipv4Header {
            ihl: b[0] & 0xF,
            dscp: b[1] >> 2,
            ecn: b[1] & 3,
            total_len: be16(&b[IPV4_TOTAL_LEN_OFF..]),
            id: be16(&b[4..]),
            flags: (ff >> 13) as u8,
            frag_offset: ff & 0x1FFF,
            ttl: b[IPV4_TTL_OFF],
            protocol: b[IPV4_PROTOCOL_OFF],
            checksum: be16(&b[10..]),
            src: b[IPV4_SRC_OFF..IPV4_SRC_OFF + 4].try_into().expect("4"),
            dst: b[IPV4_DST_OFF..IPV4_DST_OFF + 4].try_into().expect("4"),
        };
        Ok((h, IPV4_LEN))
    }
}

/// IPv6 fixed header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv6Header {
    pub dscp: u8,
    pub ecn: u8,
    pub flow_label: u32,
    pub payload_len: u16,
    pub next_header: u8,
    pub hop_limit: u8,
    pub src: [u8; 16],
    pub dst: [u8; 16],
}

impl Default for Ipv6Header {
    fn default() -> Self {
        Ipv6Header {
            dscp: 0,
            ecn: 0,
            flow_label: 0,
            payload_len: 0,
            next_header: PROTO_UDP,
            hop_limit: 64,
            src: [0; 16],
            dst: [0; 16],
        }
    }
}

impl Ipv6Header {
    pub fn pack(&self, out: &mut Vec<u8>) {
        let tc = ((self.dscp as u32) << 2) | (self.ecn as u32 & 3);
        let word = (6u32 << 28) | (tc << 20) | (self.flow_label & 0xF_FFFF);
        out.extend_from_slice(&word.to_be_bytes());
        out.extend_from_slice(&self.payload_len.to_be_bytes());
        out.push(self.next_header);
        out.push(self.hop_limit);
        out.extend_from_slice(&self.src);
        out.extend_from_slice(&self.dst);
    }

    pub fn parse(b: &[u8]) -> Result<(Self, usize), WireError> {
        need(b, IPV6_LEN)?;
        let word = be32(b);
        if word >> 28 != 6 {
            return Err(WireError::BadField("ipv6.version"));
        }
        let tc = (word >> 20) as u8;
        let h = Ipv6Header {
            dscp: tc >> 2,
            ecn: tc & 3,
            flow_label: word & 0xF_FFFF,
            payload_len: be16(&b[IPV6_PAYLOAD_LEN_OFF..]),
            next_header: b[IPV6_NEXT_HEADER_OFF],
            hop_limit: b[IPV6_HOP_LIMIT_OFF],
            src: b[IPV6_SRC_OFF..IPV6_SRC_OFF + 16].try_into().expect("16"),
            dst: b[IPV6_DST_OFF..IPV6_DST_OFF + 16].try_into().expect("16"),
        };
        Ok((h, IPV6_LEN))
    }
}
