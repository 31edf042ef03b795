//! Reading and writing capture files: classic pcap (microsecond or nanosecond, either byte
//! order) and pcapng (Enhanced and Simple Packet Blocks), Ethernet link type only.

use std::fmt;

const LINKTYPE_ETHERNET: u32 = 1;
/// pcapng's Section Header Block type, and its byte-order magic as written little-endian.
const NG_SECTION: [u8; 4] = [0x0A, 0x0D, 0x0D, 0x0A];
const NG_BYTE_ORDER: u32 = 0x1A2B_3C4D;

/// A capture that cannot be read; `at` is the byte offset in the file of the part named.
#[derive(Debug, PartialEq, Eq)]
pub enum PcapError {
    /// The file ends inside `what`, which starts at byte `at`.
    Truncated { what: &'static str, at: usize },
    /// `what` at byte `at` breaks the format: `why`.
    Malformed { what: &'static str, at: usize, why: String },
    NotPcap,
    LinkType(u32),
}

impl fmt::Display for PcapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PcapError::Truncated { what, at } => write!(f, "capture file truncated in the {what} at byte {at}"),
            PcapError::Malformed { what, at, why } => write!(f, "malformed {what} at byte {at}: {why}"),
            PcapError::NotPcap => write!(f, "not a pcap or pcapng file (unknown magic number)"),
            PcapError::LinkType(t) => {
                write!(f, "link type {t} is not Ethernet (1); capture on an Ethernet interface")
            }
        }
    }
}

impl std::error::Error for PcapError {}

/// The `n` bytes of `what` at `at`.
fn slice<'a>(b: &'a [u8], at: usize, n: usize, what: &'static str) -> Result<&'a [u8], PcapError> {
    at.checked_add(n).and_then(|end| b.get(at..end)).ok_or(PcapError::Truncated { what, at })
}

fn u32_at(b: &[u8], at: usize, big: bool, what: &'static str) -> Result<u32, PcapError> {
    let s: [u8; 4] = slice(b, at, 4, what)?.try_into().expect("4 bytes");
    Ok(if big { u32::from_be_bytes(s) } else { u32::from_le_bytes(s) })
}

/// The frames of a capture file, in order. Every length in the file is checked against the
/// file and the block holding it: a malformed capture is an error naming the byte offset,
/// never a panic, and reading always moves forward (it ends).
pub fn read(bytes: &[u8]) -> Result<Vec<Vec<u8>>, PcapError> {
    let magic = slice(bytes, 0, 4, "file header")?;
    match magic {
        [0xD4, 0xC3, 0xB2, 0xA1] | [0x4D, 0x3C, 0xB2, 0xA1] => read_classic(bytes, false),
        [0xA1, 0xB2, 0xC3, 0xD4] | [0xA1, 0xB2, 0x3C, 0x4D] => read_classic(bytes, true),
        m if m == NG_SECTION => read_ng(bytes),
        _ => Err(PcapError::NotPcap),
    }
}

fn read_classic(bytes: &[u8], big: bool) -> Result<Vec<Vec<u8>>, PcapError> {
    slice(bytes, 0, 24, "file header")?;
    let link = u32_at(bytes, 20, big, "file header")?;
    if link & 0x0FFF_FFFF != LINKTYPE_ETHERNET {
        return Err(PcapError::LinkType(link));
    }
    let mut frames = Vec::new();
    let mut at = 24;
    while at < bytes.len() {
        slice(bytes, at, 16, "record header")?;
        let incl = u32_at(bytes, at + 8, big, "record header")? as usize;
        frames.push(slice(bytes, at + 16, incl, "frame")?.to_vec());
        at += 16 + incl;
    }
    Ok(frames)
}

/// pcapng: blocks of (type, total length, body, total length again), each section's byte order
/// set by its Section Header Block.
fn read_ng(bytes: &[u8]) -> Result<Vec<Vec<u8>>, PcapError> {
    let mut frames = Vec::new();
    let mut big = false;
    let mut at = 0;
    while at < bytes.len() {
        let head = slice(bytes, at, 8, "block header")?;
        let section = head[..4] == NG_SECTION;
        if section {
            let bom = u32_at(bytes, at + 8, false, "section header")?;
            big = match bom {
                NG_BYTE_ORDER => false,
                b if b.swap_bytes() == NG_BYTE_ORDER => true,
                b => return Err(PcapError::Malformed { what: "section header", at, why: format!("byte-order magic {b:#010x}") }),
            };
        }
        let kind = u32_at(bytes, at, big, "block header")?;
        let len = u32_at(bytes, at + 4, big, "block header")? as usize;
        let least = if section { 28 } else { 12 };
        if len < least || !len.is_multiple_of(4) {
            let what = if section { "section header" } else { "block" };
            return Err(PcapError::Malformed { what, at, why: format!("total length {len} (a multiple of 4, at least {least})") });
        }
        let block = slice(bytes, at, len, "block")?;
        let trailer = u32_at(block, len - 4, big, "block")? as usize;
        if trailer != len {
            return Err(PcapError::Malformed { what: "block", at, why: format!("total length {len} at its start but {trailer} at its end") });
        }
        let body = &block[8..len - 4];
        let malformed = |what, why: String| PcapError::Malformed { what, at, why };
        match kind {
            1 => {
                let link = u32_at(body, 0, big, "interface block").map_err(|_| malformed("interface block", "shorter than 8 bytes".into()))?;
                let link = if big { link >> 16 } else { link & 0xFFFF };
                if link != LINKTYPE_ETHERNET {
                    return Err(PcapError::LinkType(link));
                }
            }
            6 => {
                let cap = u32_at(body, 12, big, "packet block").map_err(|_| malformed("enhanced packet block", "shorter than 20 bytes".into()))? as usize;
                let data = body.get(20..).and_then(|d| d.get(..cap));
                let data = data.ok_or_else(|| malformed("enhanced packet block", format!("captured length {cap} does not fit the block")))?;
                frames.push(data.to_vec());
            }
            3 => {
                let orig = u32_at(body, 0, big, "packet block").map_err(|_| malformed("simple packet block", "shorter than 4 bytes".into()))? as usize;
                frames.push(body[4..4 + orig.min(body.len() - 4)].to_vec());
            }
            _ => {}
        }
        at += len;
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
    use crate::xorshift::XorShift;

    /// A pcapng block of `kind` around `body` (padded to 4 bytes), little-endian.
    fn block(kind: u32, body: &[u8]) -> Vec<u8> {
        let mut body = body.to_vec();
        body.resize(body.len().div_ceil(4) * 4, 0);
        let len = (body.len() + 12) as u32;
        [&kind.to_le_bytes()[..], &len.to_le_bytes(), &body, &len.to_le_bytes()].concat()
    }

    /// A section with an Ethernet interface, an Enhanced and a Simple Packet Block.
    fn pcapng(frames: &[Vec<u8>; 2]) -> Vec<u8> {
        let shb = [&NG_BYTE_ORDER.to_le_bytes()[..], &[1, 0, 0, 0], &[0xFF; 8]].concat();
        let idb = [1u8, 0, 0, 0, 0, 0, 0, 0];
        let epb = [&[0u8; 12][..], &(frames[0].len() as u32).to_le_bytes(), &(frames[0].len() as u32).to_le_bytes(), &frames[0]].concat();
        let spb = [&(frames[1].len() as u32).to_le_bytes()[..], &frames[1]].concat();
        let mut out = block(0x0A0D_0D0A, &shb);
        out.extend([block(1, &idb), block(6, &epb), block(3, &spb)].concat());
        out
    }

    #[test]
    fn roundtrip_and_errors() {
        let frames = vec![(0u64, vec![1u8; 60]), (1500, vec![2u8; 99])];
        let file = write(&frames);
        let back = read(&file).unwrap();
        assert_eq!(back, vec![vec![1u8; 60], vec![2u8; 99]]);
        assert_eq!(read(&file[..file.len() - 1]), Err(PcapError::Truncated { what: "frame", at: 24 + 16 + 60 + 16 }));
        assert_eq!(read(b"hello world, this is no capture"), Err(PcapError::NotPcap));
        let mut raw_ip = file.clone();
        raw_ip[20] = 101;
        assert_eq!(read(&raw_ip), Err(PcapError::LinkType(101)));
        let ng = pcapng(&[vec![3; 61], vec![4; 64]]);
        assert_eq!(read(&ng).unwrap(), vec![vec![3; 61], vec![4; 64]]);
    }

    #[test]
    fn malformed_pcapng_blocks_are_errors_naming_their_offset() {
        let ng = pcapng(&[vec![3; 61], vec![4; 64]]);
        // A section header saying length 0 (it once made the reader loop for ever).
        let mut zero = ng.clone();
        zero[4..8].copy_from_slice(&0u32.to_le_bytes());
        let e = read(&zero).unwrap_err();
        assert_eq!(e.to_string(), "malformed section header at byte 0: total length 0 (a multiple of 4, at least 28)");
        // The Enhanced Packet Block (after the 28-byte section and 20-byte interface blocks)
        // claiming more bytes than it holds, and one whose two lengths differ.
        let mut long = ng.clone();
        long[48 + 20..48 + 24].copy_from_slice(&1000u32.to_le_bytes());
        assert!(read(&long).unwrap_err().to_string().starts_with("malformed enhanced packet block at byte 48: captured length 1000"));
        let mut odd = ng.clone();
        odd[48 + 4] += 4;
        assert!(read(&odd).unwrap_err().to_string().starts_with("malformed block at byte 48: total length"));
        assert_eq!(read(&ng[..ng.len() - 2]), Err(PcapError::Truncated { what: "block", at: 48 + 96 }));
    }

    #[test]
    fn random_damage_is_an_error_or_frames_never_a_panic() {
        // Bytes flipped, lengths replaced by random and edge values, files cut short: every
        // read returns (the loop above always moves forward), and frames it returns lie
        // inside the file.
        let good = [write(&[(0, vec![1u8; 60]), (9, vec![2u8; 99])]), pcapng(&[vec![3; 61], vec![4; 64]])];
        let mut rng = XorShift::new(0x9CA9);
        let (mut ok, mut errors) = (0, 0);
        for i in 0..20_000 {
            let mut f = good[i % 2].clone();
            for _ in 0..1 + rng.next() % 4 {
                if f.is_empty() {
                    break;
                }
                let at = (rng.next() % f.len() as u64) as usize & !3;
                let v = [0, 1, 4, 12, 0xFFFF_FFFF, 0x8000_0000, rng.next() as u32, rng.next() as u32 % 256][(rng.next() % 8) as usize];
                match rng.next() % 3 {
                    0 => f[at] ^= 1 << (rng.next() % 8),
                    1 if at + 4 <= f.len() => f[at..at + 4].copy_from_slice(&v.to_le_bytes()),
                    _ => f.truncate(at),
                }
            }
            match read(&f) {
                Ok(frames) => {
                    assert!(frames.iter().map(Vec::len).sum::<usize>() <= f.len());
                    ok += 1;
                }
                Err(_) => errors += 1,
            }
        }
        assert!(ok > 1000 && errors > 1000, "{ok} read, {errors} refused: the damage should do both");
    }
}
