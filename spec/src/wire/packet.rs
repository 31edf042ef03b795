//! A whole RoCE v2 packet: the headers from Ethernet to the extended transport headers, the
//! payload, and the frame builder that fills in lengths, pad, checksums and the ICRC.

use super::crc::IpVersion;
use super::eth::{EthHeader, ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use super::ib::{Bth, Ext, BTH_LEN, ICRC_LEN};
use super::ip::{Ipv4Header, Ipv6Header, IPV4_LEN, IPV6_LEN};
use super::udp::{UdpHeader, UDP_LEN};
use super::{icrc, ROCE_UDP_PORT};

/// The IP header of a RoCE v2 packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IpHeader {
    V4(Ipv4Header),
    V6(Ipv6Header),
}

impl IpHeader {
    pub fn version(&self) -> IpVersion {
        match self {
            IpHeader::V4(_) => IpVersion::V4,
            IpHeader::V6(_) => IpVersion::V6,
        }
    }
    pub fn header_len(&self) -> usize {
        match self {
            IpHeader::V4(_) => IPV4_LEN,
            IpHeader::V6(_) => IPV6_LEN,
        }
    }
    pub fn ecn(&self) -> u8 {
        match self {
            IpHeader::V4(h) => h.ecn,
            IpHeader::V6(h) => h.ecn,
        }
    }
}

/// A RoCE v2 packet as the parser sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RocePacket {
    pub eth: EthHeader,
    pub ip: IpHeader,
    pub udp: UdpHeader,
    pub bth: Bth,
    pub ext: Vec<Ext>,
    pub payload: Vec<u8>,
}

impl RocePacket {
    /// A packet with consistent defaults around the given transport part: the Ethernet type,
    /// UDP port 4791, pad count and all lengths are filled in by [`RocePacket::finish`].
    pub fn new(eth: EthHeader, ip: IpHeader, bth: Bth, ext: Vec<Ext>, payload: Vec<u8>) -> Self {
        let udp = UdpHeader { src_port: 0xC000, dst_port: ROCE_UDP_PORT, length: 0, checksum: 0 };
        let mut p = RocePacket { eth, ip, udp, bth, ext, payload };
        p.finish();
        p
    }

    /// Bytes from the BTH to the end of the ICRC.
    fn transport_len(&self) -> usize {
        let ext: usize = self.ext.iter().map(|e| e.kind().len()).sum();
        BTH_LEN + ext + self.payload.len() + self.bth.pad as usize + ICRC_LEN
    }

    /// Make the derived fields consistent: pad count, UDP and IP lengths, Ethernet type and the
    /// IPv4 header checksum.
    pub fn finish(&mut self) {
        self.bth.pad = ((4 - self.payload.len() % 4) % 4) as u8;
        let udp_len = UDP_LEN + self.transport_len();
        self.udp.length = udp_len as u16;
        match &mut self.ip {
            IpHeader::V4(h) => {
                self.eth.ethertype = ETHERTYPE_IPV4;
                h.total_len = (IPV4_LEN + udp_len) as u16;
                *h = h.with_checksum();
            }
            IpHeader::V6(h) => {
                self.eth.ethertype = ETHERTYPE_IPV6;
                h.payload_len = udp_len as u16;
            }
        }
    }

    /// The IP packet (IP header to the end of the ICRC) exactly as its fields say.
    pub fn ip_packet(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match &self.ip {
            IpHeader::V4(h) => h.pack(&mut out),
            IpHeader::V6(h) => h.pack(&mut out),
        }
        self.udp.pack(&mut out);
        self.bth.pack(&mut out);
        for e in &self.ext {
            e.pack(&mut out);
        }
        out.extend_from_slice(&self.payload);
        out.extend(std::iter::repeat_n(0u8, self.bth.pad as usize));
        let crc = icrc(self.ip.version(), &out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// The Ethernet frame without FCS, padded to the 60-byte minimum.
    pub fn frame(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.eth.pack(&mut out);
        out.extend_from_slice(&self.ip_packet());
        if out.len() < super::MIN_FRAME_NO_FCS {
            out.resize(super::MIN_FRAME_NO_FCS, 0);
        }
        out
    }

    /// The frame with its FCS appended, as a soft MAC receives it.
    pub fn frame_with_fcs(&self) -> Vec<u8> {
        let mut out = self.frame();
        let fcs = super::fcs(&out);
        out.extend_from_slice(&fcs.to_le_bytes());
        out
    }
}
