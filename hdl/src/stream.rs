//! The 512-bit AXI-Stream conventions shared by the RTL blocks, and constant tables for them.
//!
//! A beat carries 64 bytes, byte 0 in `tdata[7:0]`. `tkeep` is contiguous from byte 0 (every
//! beat but a frame's last is full), so blocks carry a byte count (1..=64) internally and
//! convert at their edges. rust-hdl cannot widen or concatenate without Verilator WIDTH
//! warnings, so the tables below are built in plain Rust and used as `Constant`s.

use rust_hdl::prelude::*;

pub const BEAT_BYTES: usize = 64;
pub const BEAT_BITS: usize = 512;

/// A 512-bit value from its bytes (byte 0 = bits 7:0).
pub fn bits512_from_bytes(bytes: &[u8]) -> Bits<512> {
    let mut b: Bits<512> = Bits::default();
    for (i, chunk) in bytes.chunks(8).enumerate().take(8) {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        b.set_bits::<64>(i * 64, bits::<64>(u64::from_le_bytes(w)));
    }
    b
}

/// `lanes()[i]` has byte lane i set to 0xFF.
pub fn lanes() -> [Constant<Bits<512>>; BEAT_BYTES] {
    std::array::from_fn(|i| {
        let mut bytes = [0u8; BEAT_BYTES];
        bytes[i] = 0xFF;
        Constant::new(bits512_from_bytes(&bytes))
    })
}

/// `numbers::<N, M>()[i]` is the N-bit constant i, for i in 0..M.
pub fn numbers<const N: usize, const M: usize>() -> [Constant<Bits<N>>; M] {
    std::array::from_fn(|i| Constant::new(bits::<N>(i as u64)))
}

/// `one_hot::<N>()[i]` has only bit i set.
pub fn one_hot<const N: usize>() -> [Constant<Bits<N>>; N] {
    std::array::from_fn(|i| {
        let mut b: Bits<N> = Bits::default();
        b = b.replace_bit(i, true);
        Constant::new(b)
    })
}
