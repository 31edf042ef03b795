//! Frames as 512-bit AXI-Stream beats.

pub const BEAT_BYTES: usize = 64;

/// One beat: 64 data bytes (unused bytes zero), the tkeep mask and tlast.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beat {
    pub data: [u8; BEAT_BYTES],
    pub keep: u64,
    pub last: bool,
}

/// Split a frame into beats; an empty frame has none.
pub fn beats(frame: &[u8]) -> Vec<Beat> {
    let n = frame.len().div_ceil(BEAT_BYTES);
    frame
        .chunks(BEAT_BYTES)
        .enumerate()
        .map(|(i, chunk)| {
            let mut data = [0u8; BEAT_BYTES];
            data[..chunk.len()].copy_from_slice(chunk);
            let keep = if chunk.len() == 64 { u64::MAX } else { (1u64 << chunk.len()) - 1 };
            Beat { data, keep, last: i + 1 == n }
        })
        .collect()
}

/// Append the bytes of the beat on `data`/`keep` to `partial`; on `last`, hand back the whole
/// frame. Panics if `tkeep` is not contiguous from byte 0 (an RTL bug).
pub(crate) fn gather(m: &crate::Model, partial: &mut Vec<u8>, data: crate::Port, keep: crate::Port, last: crate::Port) -> Option<Vec<u8>> {
    let keep = m.get(keep);
    let n = keep.count_ones() as usize;
    assert_eq!(keep, if n == 64 { u64::MAX } else { (1 << n) - 1 }, "tkeep not contiguous");
    partial.extend_from_slice(&m.get_bytes(data)[..n]);
    (m.get(last) == 1).then(|| std::mem::take(partial))
}
