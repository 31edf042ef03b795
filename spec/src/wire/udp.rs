//! UDP header.

use super::{be16, need, WireError};

pub const UDP_LEN: usize = 8;
pub const UDP_SRC_PORT_OFF: usize = 0;
pub const UDP_DST_PORT_OFF: usize = 2;
pub const UDP_LENGTH_OFF: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UdpHeader {
    pub src_port: u16,
    pub dst_port: u16,
    /// Header plus payload, in bytes.
    pub length: u16,
    /// RoCE v2 senders put 0 here (Annex A17.4.2); receivers do not check it.
    pub checksum: u16,
}

impl UdpHeader {
    pub fn pack(&self, out: &mut Vec<u8>) {
        for v in [self.src_port, self.dst_port, self.length, self.checksum] {
            out.extend_from_slice(&v.to_be_bytes());
        }
    }

    pub fn parse(b: &[u8]) -> Result<(Self, usize), WireError> {
        need(b, UDP_LEN)?;
        let h = UdpHeader {
            src_port: be16(&b[UDP_SRC_PORT_OFF..]),
            dst_port: be16(&b[UDP_DST_PORT_OFF..]),
            length: be16(&b[UDP_LENGTH_OFF..]),
            checksum: be16(&b[6..]),
        };
        Ok((h, UDP_LEN))
    }
}
