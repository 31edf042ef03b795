//! The receive-path contract: what the RX pipeline decides for every frame, and why.
//!
//! [`classify`] is the reference model of the RTL receive pipeline. The first failing check
//! names the drop, in this order: runt; header checks layer by layer (Ethernet type, IPv4
//! checksum, options, fragment, IP protocol, IP length, UDP port, UDP length, BTH length,
//! version, opcode, extended-header length, pad, payload size); then the ICRC. A bad FCS
//! overrides every reason but `runt`. The RTL reports the same reason for the same frame (its
//! tests compare the two on random frames).

use super::crc::{crc32_update, icrc, IpVersion, INIT, RESIDUE};
use super::eth::{EthHeader, ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use super::ib::{Bth, Ext, BTH_LEN, ICRC_LEN};
use super::ip::{internet_checksum, Ipv4Header, Ipv6Header, IPV4_LEN, IPV6_LEN, PROTO_UDP};
use super::packet::{IpHeader, RocePacket};
use super::udp::{UdpHeader, UDP_LEN};
use super::{Opcode, MAX_PAYLOAD, MIN_FRAME_NO_FCS, ROCE_UDP_PORT};

/// Why the RX pipeline dropped a frame. The discriminant is the code the RTL reports and the
/// index of the drop counter (0 means accepted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DropReason {
    /// Shorter than the 64-byte Ethernet minimum (60 without FCS).
    Runt = 1,
    /// Ethernet FCS mismatch (the RTL also reports a MAC-signalled receive error this way).
    BadFcs,
    /// Not IPv4/IPv6 over UDP to port 4791: leaves on the not-RoCE port (not an error).
    NotRoce,
    /// IPv4 header checksum mismatch.
    Ipv4Checksum,
    /// IPv4 header with options (IHL != 5): RoCE v2 does not use them.
    Ipv4Options,
    /// IPv4 fragment (MF set or offset != 0): RoCE v2 packets are never fragmented.
    Ipv4Fragment,
    /// IPv4 total length or IPv6 payload length disagrees with the frame length.
    IpLength,
    /// UDP length disagrees with the IP length.
    UdpLength,
    /// Too short for a BTH and ICRC.
    BthTruncated,
    /// BTH transport version is not 0.
    BthVersion,
    /// Opcode not in the opcode table.
    UnknownOpcode,
    /// Too short for the extended headers the opcode requires, plus the ICRC.
    ExtTruncated,
    /// Payload plus pad is not a multiple of 4, or pad exceeds it, or an opcode without payload
    /// has bytes after its headers.
    PadLength,
    /// More than 4096 bytes of payload.
    PayloadTooLong,
    /// ICRC mismatch.
    BadIcrc,
}

impl DropReason {
    pub const ALL: [DropReason; 15] = [
        DropReason::Runt,
        DropReason::BadFcs,
        DropReason::NotRoce,
        DropReason::Ipv4Checksum,
        DropReason::Ipv4Options,
        DropReason::Ipv4Fragment,
        DropReason::IpLength,
        DropReason::UdpLength,
        DropReason::BthTruncated,
        DropReason::BthVersion,
        DropReason::UnknownOpcode,
        DropReason::ExtTruncated,
        DropReason::PadLength,
        DropReason::PayloadTooLong,
        DropReason::BadIcrc,
    ];

    /// Short snake_case name used by the CLI, the manifest and the counters.
    pub const fn name(self) -> &'static str {
        match self {
            DropReason::Runt => "runt",
            DropReason::BadFcs => "bad_fcs",
            DropReason::NotRoce => "not_roce",
            DropReason::Ipv4Checksum => "ipv4_checksum",
            DropReason::Ipv4Options => "ipv4_options",
            DropReason::Ipv4Fragment => "ipv4_fragment",
            DropReason::IpLength => "ip_length",
            DropReason::UdpLength => "udp_length",
            DropReason::BthTruncated => "bth_truncated",
            DropReason::BthVersion => "bth_version",
            DropReason::UnknownOpcode => "unknown_opcode",
            DropReason::ExtTruncated => "ext_truncated",
            DropReason::PadLength => "pad_length",
            DropReason::PayloadTooLong => "payload_too_long",
            DropReason::BadIcrc => "bad_icrc",
        }
    }

    pub const fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(code: u8) -> Option<DropReason> {
        DropReason::ALL.iter().copied().find(|r| r.code() == code)
    }

    pub fn from_name(name: &str) -> Option<DropReason> {
        DropReason::ALL.iter().copied().find(|r| r.name() == name)
    }
}

/// How the MAC in front of the pipeline delivers frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxConfig {
    /// Frames carry their 4-byte FCS (soft MAC); false behind a hard MAC that checked and
    /// stripped it already.
    pub fcs: bool,
}

/// The outcome for one frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxResult {
    pub verdict: Result<(), DropReason>,
    /// The parsed packet when parsing got as far as the extended headers (also for frames
    /// dropped later, e.g. for a bad ICRC, so reports can show opcode, QP and PSN).
    pub packet: Option<RocePacket>,
}

/// Classify one received frame. See the module docs.
pub fn classify(frame: &[u8], cfg: RxConfig) -> RxResult {
    let mut packet = None;
    let verdict = check(frame, cfg, &mut packet);
    RxResult { verdict, packet }
}

fn check(frame: &[u8], cfg: RxConfig, packet: &mut Option<RocePacket>) -> Result<(), DropReason> {
    use DropReason as D;
    let fcs_len = if cfg.fcs { 4 } else { 0 };
    if frame.len() < MIN_FRAME_NO_FCS + fcs_len {
        return Err(D::Runt);
    }
    let fcs_ok = !cfg.fcs || crc32_update(INIT, frame) == RESIDUE;
    let frame = &frame[..frame.len() - fcs_len];

    // Header checks run even on a bad FCS so reports can show what arrived; FCS wins.
    let mut result = headers(frame, packet);
    if !fcs_ok {
        result = Err(D::BadFcs);
    }
    result
}

fn headers(frame: &[u8], packet: &mut Option<RocePacket>) -> Result<(), DropReason> {
    use DropReason as D;
    let (eth, l2) = EthHeader::parse(frame).map_err(|_| D::Runt)?;
    let ip_bytes = &frame[l2..];
    // IP: header fields, then the length against the frame (which may carry minimum-size
    // Ethernet padding after the IP packet, and nothing else).
    let (ip, ip_len, ip_hdr_len, proto) = match eth.ethertype {
        ETHERTYPE_IPV4 => {
            let (h, _) = Ipv4Header::parse(ip_bytes).map_err(|_| D::NotRoce)?;
            if internet_checksum(&ip_bytes[..IPV4_LEN]) != 0 {
                return Err(D::Ipv4Checksum);
            }
            if h.ihl != 5 {
                return Err(D::Ipv4Options);
            }
            if h.flags & 1 != 0 || h.frag_offset != 0 {
                return Err(D::Ipv4Fragment);
            }
            (IpHeader::V4(h), h.total_len as usize, IPV4_LEN, h.protocol)
        }
        ETHERTYPE_IPV6 => {
            let (h, _) = Ipv6Header::parse(ip_bytes).map_err(|_| D::NotRoce)?;
            (IpHeader::V6(h), IPV6_LEN + h.payload_len as usize, IPV6_LEN, h.next_header)
        }
        _ => return Err(D::NotRoce),
    };
    if proto != PROTO_UDP {
        return Err(D::NotRoce);
    }
    let padded_min = frame.len() == MIN_FRAME_NO_FCS && l2 + ip_len < MIN_FRAME_NO_FCS;
    if ip_len < ip_hdr_len || (l2 + ip_len != frame.len() && !padded_min) {
        return Err(D::IpLength);
    }
    let ip_packet = &ip_bytes[..ip_len];
    let udp_bytes = &ip_packet[ip_hdr_len..];
    let (udp, _) = UdpHeader::parse(udp_bytes).map_err(|_| D::UdpLength)?;
    if udp.dst_port != ROCE_UDP_PORT {
        return Err(D::NotRoce);
    }
    if udp.length as usize != udp_bytes.len() {
        return Err(D::UdpLength);
    }
    let transport = &udp_bytes[UDP_LEN..];
    if transport.len() < BTH_LEN + ICRC_LEN {
        return Err(D::BthTruncated);
    }
    let (bth, _) = Bth::parse(transport).map_err(|_| D::BthTruncated)?;
    if bth.tver != 0 {
        return Err(D::BthVersion);
    }
    let op = Opcode::lookup(bth.opcode).ok_or(D::UnknownOpcode)?;
    if transport.len() < BTH_LEN + op.ext_len() + ICRC_LEN {
        return Err(D::ExtTruncated);
    }
    let mut ext = Vec::with_capacity(op.ext.len());
    let mut at = BTH_LEN;
    for &kind in op.ext {
        let (e, n) = Ext::parse(kind, &transport[at..]).map_err(|_| D::ExtTruncated)?;
        ext.push(e);
        at += n;
    }
    let body = &transport[at..transport.len() - ICRC_LEN];
    let pad = bth.pad as usize;
    let payload_len = body.len().saturating_sub(pad);
    *packet = Some(RocePacket {
        eth,
        ip,
        udp,
        bth,
        ext,
        payload: body[..payload_len].to_vec(),
    });
    if !body.len().is_multiple_of(4) || pad > body.len() || (!op.payload && !body.is_empty()) {
        return Err(D::PadLength);
    }
    if payload_len > MAX_PAYLOAD {
        return Err(D::PayloadTooLong);
    }
    let version = match ip {
        IpHeader::V4(_) => IpVersion::V4,
        IpHeader::V6(_) => IpVersion::V6,
    };
    let covered = &ip_packet[..ip_len - ICRC_LEN];
    let received = u32::from_le_bytes(ip_packet[ip_len - ICRC_LEN..].try_into().expect("4"));
    if icrc(version, covered) != received {
        return Err(D::BadIcrc);
    }
    Ok(())
}

/// The header record of an accepted packet as the receive pipeline hands it to the transport
/// engines: two 512-bit words, fields packed from bit 0 upward in the order listed, each a
/// plain number (big-endian wire fields already converted). IPv4 addresses sit in the low 32
/// bits of the 128-bit address fields; VLAN TCI is 0 without a tag.
pub const RECORD_WORD0: &[(&str, usize)] = &[
    ("opcode", 8),
    ("bth_flags", 8),
    ("pkey", 16),
    ("fecn", 1),
    ("becn", 1),
    ("ack_req", 1),
    ("dest_qp", 24),
    ("psn", 24),
    ("payload_len", 13),
    ("va", 64),
    ("rkey", 32),
    ("dma_len", 32),
    ("imm", 32),
    ("ieth_rkey", 32),
    ("aeth_syndrome", 8),
    ("aeth_msn", 24),
    ("qkey", 32),
    ("src_qp", 24),
    ("ipv6", 1),
    ("vlan", 1),
    ("vlan_tci", 16),
    ("dscp", 6),
    ("ecn", 2),
    ("udp_src_port", 16),
];

/// The second record word: atomic operands, addresses.
pub const RECORD_WORD1: &[(&str, usize)] = &[
    ("swap_add", 64),
    ("compare", 64),
    ("atomic_ack", 64),
    ("ip_src", 128),
    ("ip_dst", 128),
    ("eth_src", 48),
    ("ttl", 8),
];

/// Bit offset and width of a record field: `(word, offset, bits)`.
pub fn record_field(name: &str) -> Option<(usize, usize, usize)> {
    for (w, fields) in [RECORD_WORD0, RECORD_WORD1].iter().enumerate() {
        let mut at = 0;
        for &(n, bits) in fields.iter() {
            if n == name {
                return Some((w, at, bits));
            }
            at += bits;
        }
    }
    None
}

#[cfg(test)]
mod record_tests {
    use super::*;

    #[test]
    fn record_words_fit_a_beat() {
        for fields in [RECORD_WORD0, RECORD_WORD1] {
            assert!(fields.iter().map(|f| f.1).sum::<usize>() <= 512);
        }
        assert_eq!(record_field("psn"), Some((0, 8 + 8 + 16 + 3 + 24, 24)));
        assert_eq!(record_field("ip_src"), Some((1, 192, 128)));
        assert_eq!(record_field("nope"), None);
    }
}
