//! Reading and writing capture files: classic pcap (microsecond or nanosecond, either byte
//! order) and pcapng (Enhanced and Simple Packet Blocks), Ethernet link type only.

use std::fmt;

const LINKTYPE_ETHERNET: u32 = 1;

#[derive(Debug, PartialEq, Eq)]
pub enum PcapError {
    Truncated(&'static str),
    NotPcap,
    LinkType(u32),
}

impl fmt::Display for PcapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PcapError::Truncated(what) => write!(f, "capture file truncated in {what}"),
            PcapError::NotPcap => write!(f, "not a pcap or pcapng file (unknown magic number)"),
            PcapError::LinkType(t) => {
                write!(f, "link type {t} is not Ethernet (1); capture on an Ethernet interface")
            }
        }
    }
}

impl std::error::Error for PcapError {}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
    big: bool,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], PcapError> {
        let s = self.b.get(self.at..self.at + n).ok_or(PcapError::Truncated(what))?;
        self.at += n;
        Ok(s)
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, PcapError> {
        let s: [u8; 4] = self.take(4, what)?.try_into().expect("4");
        Ok(if self.big { u32::from_be_bytes(s) } else { u32::from_le_bytes(s) })
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, PcapError> {
        let s: [u8; 2] = self.take(2, what)?.try_into().expect("2");
        Ok(if self.big { u16::from_be_bytes(s) } else { u16::from_le_bytes(s) })
    }
}

/// The frames of a capture file, in order.
pub fn read(bytes: &[u8]) -> Result<Vec<Vec<u8>>, PcapError> {
    let magic = bytes.get(..4).ok_or(PcapError::Truncated("file header"))?;
    match magic {
        [0xD4, 0xC3, 0xB2, 0xA1] | [0x4D, 0x3C, 0xB2, 0xA1] => read_classic(bytes, false),
        [0xA1, 0xB2, 0xC3, 0xD4] | [0xA1, 0xB2, 0x3C, 0x4D] => read_classic(bytes, true),
        [0x0A, 0x0D, 0x0D, 0x0A] => read_ng(bytes),
        _ => Err(PcapError::NotPcap),
    }
}

fn read_classic(bytes: &[u8], big: bool) -> Result<Vec<Vec<u8>>, PcapError> {
    let mut r = Reader { b: bytes, at: 20, big };
    let link = r.u32("file header")?;
    if link & 0x0FFF_FFFF != LINKTYPE_ETHERNET {
        return Err(PcapError::LinkType(link));
    }
    let mut frames = Vec::new();
    while r.at < bytes.len() {
        r.take(8, "record header")?;
        let incl = r.u32("record header")? as usize;
        r.u32("record header")?;
        frames.push(r.take(incl, "frame")?.to_vec());
    }
    Ok(frames)
}

fn read_ng(bytes: &[u8]) -> Result<Vec<Vec<u8>>, PcapError> {
    let mut frames = Vec::new();
    let mut r = Reader { b: bytes, at: 0, big: false };
    while r.at < bytes.len() {
        let start = r.at;
        let kind_raw = r.take(4, "block header")?;
        if kind_raw == [0x0A, 0x0D, 0x0D, 0x0A] {
            // Section header: the byte-order magic sets the endianness of what follows.
            let len_raw: [u8; 4] = r.take(4, "section header")?.try_into().expect("4");
            let bom = r.take(4, "section header")?;
            r.big = bom == [0x1A, 0x2B, 0x3C, 0x4D];
            let len = if r.big { u32::from_be_bytes(len_raw) } else { u32::from_le_bytes(len_raw) };
            r.at = start + len as usize;
            continue;
        }
        r.at = start;
        let kind = r.u32("block header")?;
        let len = r.u32("block header")? as usize;
        if len < 12 {
            return Err(PcapError::Truncated("block length"));
        }
        match kind {
            1 => {
                let link = r.u16("interface block")? as u32;
                if link != LINKTYPE_ETHERNET {
                    return Err(PcapError::LinkType(link));
                }
            }
            6 => {
                r.take(12, "packet block")?;
                let cap = r.u32("packet block")? as usize;
                r.u32("packet block")?;
                frames.push(r.take(cap, "frame")?.to_vec());
            }
            3 => {
                let orig = r.u32("packet block")? as usize;
                let cap = orig.min(len - 16);
                frames.push(r.take(cap, "frame")?.to_vec());
            }
            _ => {}
        }
        r.at = start + len;
    }
    Ok(frames)
}

/// Write `(timestamp in ns, frame)` pairs as a classic little-endian microsecond pcap with the
/// Ethernet link type.
pub fn write(frames: &[(u64, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&0xA1B2_C3D4u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&4u16.to_le_bytes());
    for v in [0u32, 0, 65535, LINKTYPE_ETHERNET] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for (ns, f) in frames {
        let secs = (ns / 1_000_000_000) as u32;
        let usecs = ((ns % 1_000_000_000) / 1000) as u32;
        for v in [secs, usecs, f.len() as u32, f.len() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(f);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_errors() {
        let frames = vec![(0u64, vec![1u8; 60]), (1500, vec![2u8; 99])];
        let file = write(&frames);
        let back = read(&file).unwrap();
        assert_eq!(back, vec![vec![1u8; 60], vec![2u8; 99]]);
        assert_eq!(read(&file[..file.len() - 1]), Err(PcapError::Truncated("frame")));
        assert_eq!(read(b"hello world, this is no capture"), Err(PcapError::NotPcap));
        let mut raw_ip = file.clone();
        raw_ip[20] = 101;
        assert_eq!(read(&raw_ip), Err(PcapError::LinkType(101)));
    }
}
