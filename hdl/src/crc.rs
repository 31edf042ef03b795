//! CRC-32 over a 512-bit stream at one beat per cycle: checked against the residue on the
//! receive path (Ethernet FCS, RoCE ICRC), generated for appending on the transmit path.
//!
//! The CRC is linear, so one beat's update splits into a feed-forward part that depends only on
//! the data (`M_d · data`, 32 parities of up to 512 bits, pipelined) and a short feedback part
//! (`M_s · state`, 32 parities of 32 bits). All matrices are computed in plain Rust from
//! `rnic_spec::wire::crc` when the blocks are built. [`Crc32Core`] does this for both users.
//!
//! A short last beat is processed as a full beat with its missing bytes zeroed, which is the
//! same as appending `k` zero bytes to the message. The check does not undo them: it compares
//! against the residue advanced by the same `k` zero bytes (64 constants). The generator undoes
//! them with the inverse zero-byte matrices.

use crate::stream::{bits512_from_bytes, c, lanes, one_hot, BEAT_BYTES};
use rnic_spec::wire::crc::{crc32_rewind_zeros, crc32_update, RESIDUE};
use rust_hdl::prelude::*;

/// Input-to-result latency of [`Crc32Core`] in cycles.
pub const CRC_CORE_LATENCY: usize = 3;
/// Input-to-verdict latency of [`Crc32Check`] in cycles.
pub const CRC_CHECK_LATENCY: usize = CRC_CORE_LATENCY + 1;
/// Input-to-result latency of [`Crc32Gen`] in cycles.
pub const CRC_GEN_LATENCY: usize = CRC_CORE_LATENCY + 6;

/// CRC register after processing one 64-byte beat, as a function of the previous register
/// (`data` = 0) or of the data (`reg` = 0).
fn beat_update(reg: u32, data: &[u8; BEAT_BYTES]) -> u32 {
    crc32_update(reg, data)
}


/// `data_masks()[i]` has bit j set when bit j of a beat flips bit i of the CRC register.
fn data_masks() -> [Constant<Bits<512>>; 32] {
    let mut dmask = [[0u8; BEAT_BYTES]; 32];
    for j in 0..512 {
        let mut beat = [0u8; BEAT_BYTES];
        beat[j / 8] = 1 << (j % 8);
        let crc = beat_update(0, &beat);
        for (i, m) in dmask.iter_mut().enumerate() {
            if crc >> i & 1 == 1 {
                m[j / 8] |= 1 << (j % 8);
            }
        }
    }
    std::array::from_fn(|i| Constant::new(bits512_from_bytes(&dmask[i])))
}

/// Rows of the linear map `f` on the 32-bit register: bit j of row i is set when input bit j
/// flips output bit i.
fn register_map(f: impl Fn(u32) -> u32) -> [Constant<Bits<32>>; 32] {
    let mut rows = [0u32; 32];
    for j in 0..32 {
        let out = f(1 << j);
        for (i, m) in rows.iter_mut().enumerate() {
            if out >> i & 1 == 1 {
                *m |= 1 << j;
            }
        }
    }
    rows.map(|m| c::<32>(m as u64))
}

crate::hdl_block! {
    /// The CRC register over a message, one beat per cycle: bytes past `in_count` zeroed
    /// (stage 1), the data's parities (stage 2), the state feedback (stage 3). On a message's
    /// last beat the register and the number of zero bytes that padded it come out
    /// `CRC_CORE_LATENCY` cycles later.
    pub struct Crc32Core {
        pub clock: Signal<In, Clock>,
        /// A beat of the message is present.
        pub in_valid: Signal<In, Bit>,
        /// First beat: the CRC starts from `in_init` instead of the running state.
        pub in_first: Signal<In, Bit>,
        /// Last beat: the result for the message follows after the latency.
        pub in_last: Signal<In, Bit>,
        /// Register value the message starts from (0xFFFFFFFF for plain CRC-32).
        pub in_init: Signal<In, Bits<32>>,
        pub in_data: Signal<In, Bits<512>>,
        /// Valid bytes of this beat, 1..=64, in the low bytes; the rest are ignored.
        pub in_count: Signal<In, Bits<7>>,
        /// Pulses once per message: `out_state` is the register after its last beat.
        pub out_done: Signal<Out, Bit>,
        pub out_state: Signal<Out, Bits<32>>,
        /// Zero bytes that padded the last beat (64 - count, mod 64).
        pub out_pad: Signal<Out, Bits<6>>,

        zero: Constant<Bits<512>> = Constant::new(Bits::default()),
        zero32: Constant<Bits<32>> = c::<32>(0),
        beat7: Constant<Bits<7>> = c::<7>(BEAT_BYTES as u64),
        lane: [Constant<Bits<512>>; 64] = lanes(),
        data_masks: [Constant<Bits<512>>; 32] = data_masks(),
        state_masks: [Constant<Bits<32>>; 32] = register_map(|r| beat_update(r, &[0; BEAT_BYTES])),
        one_hot: [Constant<Bits<32>>; 32] = one_hot::<32>(),

        s1_valid: DFF<Bit>,
        s1_first: DFF<Bit>,
        s1_last: DFF<Bit>,
        s1_init: DFF<Bits<32>>,
        s1_data: DFF<Bits<512>>,
        s1_pad: DFF<Bits<6>>,
        s2_valid: DFF<Bit>,
        s2_first: DFF<Bit>,
        s2_last: DFF<Bit>,
        s2_init: DFF<Bits<32>>,
        s2_contrib: DFF<Bits<32>>,
        s2_pad: DFF<Bits<6>>,
        s3_state: DFF<Bits<32>>,
        s3_done: DFF<Bit>,
        s3_pad: DFF<Bits<6>>,

        keep: Signal<Local, Bits<512>>,
        empty: Signal<Local, Bits<7>>,
        contrib: Signal<Local, Bits<32>>,
        prev_state: Signal<Local, Bits<32>>,
        next_state: Signal<Local, Bits<32>>,
    }
}

impl Logic for Crc32Core {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_valid, s1_first, s1_last, s1_init, s1_data, s1_pad, s2_valid, s2_first, s2_last,
            s2_init, s2_contrib, s2_pad, s3_state, s3_done, s3_pad
        );
        // Stage 1: zero the bytes past in_count; k = 64 - count (mod 64) bytes were added.
        self.s1_valid.d.next = self.in_valid.val();
        self.s1_first.d.next = self.in_first.val();
        self.s1_last.d.next = self.in_last.val();
        self.s1_init.d.next = self.in_init.val();
        self.keep.next = self.zero.val();
        for i in 0..64 {
            if self.in_count.val().index() > i {
                self.keep.next = self.keep.val() | self.lane[i].val();
            }
        }
        self.s1_data.d.next = self.in_data.val() & self.keep.val();
        self.empty.next = self.beat7.val() - self.in_count.val();
        self.s1_pad.d.next = self.empty.val().get_bits::<6>(0);

        // Stage 2: the data's contribution, one parity per register bit.
        self.contrib.next = self.zero32.val();
        for i in 0..32 {
            if (self.s1_data.q.val() & self.data_masks[i].val()).xor() {
                self.contrib.next = self.contrib.val() | self.one_hot[i].val();
            }
        }
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_first.d.next = self.s1_first.q.val();
        self.s2_last.d.next = self.s1_last.q.val();
        self.s2_init.d.next = self.s1_init.q.val();
        self.s2_contrib.d.next = self.contrib.val();
        self.s2_pad.d.next = self.s1_pad.q.val();

        // Stage 3: state feedback.
        self.prev_state.next = self.s3_state.q.val();
        if self.s2_first.q.val() {
            self.prev_state.next = self.s2_init.q.val();
        }
        self.next_state.next = self.s2_contrib.q.val();
        for i in 0..32 {
            if (self.prev_state.val() & self.state_masks[i].val()).xor() {
                self.next_state.next = self.next_state.val() ^ self.one_hot[i].val();
            }
        }
        if self.s2_valid.q.val() {
            self.s3_state.d.next = self.next_state.val();
        }
        self.s3_done.d.next = self.s2_valid.q.val() & self.s2_last.q.val();
        self.s3_pad.d.next = self.s2_pad.q.val();
        self.out_done.next = self.s3_done.q.val();
        self.out_state.next = self.s3_state.q.val();
        self.out_pad.next = self.s3_pad.q.val();
    }
}

crate::hdl_block! {
    /// The CRC of a message checked against the residue: `out_ok` says the message ended with
    /// its correct little-endian CRC.
    pub struct Crc32Check {
        pub clock: Signal<In, Clock>,
        pub in_valid: Signal<In, Bit>,
        pub in_first: Signal<In, Bit>,
        pub in_last: Signal<In, Bit>,
        pub in_init: Signal<In, Bits<32>>,
        pub in_data: Signal<In, Bits<512>>,
        pub in_count: Signal<In, Bits<7>>,
        /// Pulses once per message, `CRC_CHECK_LATENCY` cycles after its last beat.
        pub out_valid: Signal<Out, Bit>,
        pub out_ok: Signal<Out, Bit>,

        core: Crc32Core,
        zero32: Constant<Bits<32>> = c::<32>(0),
        /// `residue[k]`: the register a correct message leaves after k zero bytes of padding.
        residue: [Constant<Bits<32>>; 64] =
            std::array::from_fn(|k| c::<32>(crc32_update(RESIDUE, &vec![0; k]) as u64)),
        pad_id: [Constant<Bits<6>>; 64] = crate::stream::numbers::<6, 64>(),
        s4_valid: DFF<Bit>,
        s4_ok: DFF<Bit>,
        residue_now: Signal<Local, Bits<32>>,
    }
}

impl Logic for Crc32Check {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s4_valid, s4_ok);
        self.core.clock.next = self.clock.val();
        self.core.in_valid.next = self.in_valid.val();
        self.core.in_first.next = self.in_first.val();
        self.core.in_last.next = self.in_last.val();
        self.core.in_init.next = self.in_init.val();
        self.core.in_data.next = self.in_data.val();
        self.core.in_count.next = self.in_count.val();
        // Stage 4: compare with the residue for this message's padding.
        self.residue_now.next = self.zero32.val();
        for k in 0..64 {
            if self.core.out_pad.val() == self.pad_id[k].val() {
                self.residue_now.next = self.residue[k].val();
            }
        }
        self.s4_valid.d.next = self.core.out_done.val();
        self.s4_ok.d.next = self.core.out_state.val() == self.residue_now.val();
        self.out_valid.next = self.s4_valid.q.val();
        self.out_ok.next = self.s4_ok.q.val();
    }
}

crate::hdl_block! {
    /// CRC-32 of a 512-bit stream for appending (the FCS and the ICRC on the transmit path):
    /// after the core, six stages undo the last beat's zero padding with `Z^-1`, `Z^-2`, …
    /// `Z^-32` (`Z`: one zero byte) chosen by the bits of the pad count, one per stage (a
    /// 32×32 matrix product each, to stay shallow), and the last applies the final XOR.
    pub struct Crc32Gen {
        pub clock: Signal<In, Clock>,
        pub in_valid: Signal<In, Bit>,
        pub in_first: Signal<In, Bit>,
        pub in_last: Signal<In, Bit>,
        /// Register value the message starts from (0xFFFFFFFF for plain CRC-32).
        pub in_init: Signal<In, Bits<32>>,
        pub in_data: Signal<In, Bits<512>>,
        /// Valid bytes of this beat, 1..=64, in the low bytes; the rest are ignored.
        pub in_count: Signal<In, Bits<7>>,
        /// Pulses once per message, `CRC_GEN_LATENCY` cycles after its last beat.
        pub out_valid: Signal<Out, Bit>,
        /// The CRC, to be sent least significant byte first.
        pub out_crc: Signal<Out, Bits<32>>,

        core: Crc32Core,
        zero32: Constant<Bits<32>> = c::<32>(0),
        ones32: Constant<Bits<32>> = c::<32>(0xFFFF_FFFF),
        /// `unpad[32 * i + b]`: row b of the map from the register after `2^i` zero bytes to
        /// the register before them (flat: rust-hdl has no nested arrays).
        unpad: [Constant<Bits<32>>; 192] = {
            let maps: Vec<_> = (0..6).map(|i| register_map(|r| crc32_rewind_zeros(r, 1 << i))).collect();
            std::array::from_fn(|k| maps[k / 32][k % 32])
        },
        one_hot: [Constant<Bits<32>>; 32] = one_hot::<32>(),

        u_done: [DFF<Bit>; 6],
        u_reg: [DFF<Bits<32>>; 6],
        u_pad: [DFF<Bits<6>>; 5],

        u_in: [Signal<Local, Bits<32>>; 6],
        u_k: [Signal<Local, Bits<6>>; 6],
        u_prod: [Signal<Local, Bits<32>>; 6],
        u_res: [Signal<Local, Bits<32>>; 6],
    }
}

impl Logic for Crc32Gen {
    #[hdl_gen]
    fn update(&mut self) {
        self.core.clock.next = self.clock.val();
        self.core.in_valid.next = self.in_valid.val();
        self.core.in_first.next = self.in_first.val();
        self.core.in_last.next = self.in_last.val();
        self.core.in_init.next = self.in_init.val();
        self.core.in_data.next = self.in_data.val();
        self.core.in_count.next = self.in_count.val();
        for i in 0..6 {
            self.u_done[i].clock.next = self.clock.val();
            self.u_reg[i].clock.next = self.clock.val();
        }
        for i in 0..5 {
            self.u_pad[i].clock.next = self.clock.val();
        }
        // Stages 4-9 after the core's three: take the padding back out, one bit of k per
        // stage (stage s multiplies by Z^-(2^s) when bit s is set).
        self.u_in[0].next = self.core.out_state.val();
        self.u_k[0].next = self.core.out_pad.val();
        self.u_done[0].d.next = self.core.out_done.val();
        self.u_pad[0].d.next = self.core.out_pad.val();
        for s in 1..6 {
            self.u_in[s].next = self.u_reg[s - 1].q.val();
            self.u_k[s].next = self.u_pad[s - 1].q.val();
            self.u_done[s].d.next = self.u_done[s - 1].q.val();
        }
        for s in 1..5 {
            self.u_pad[s].d.next = self.u_pad[s - 1].q.val();
        }
        for s in 0..6 {
            self.u_prod[s].next = self.zero32.val();
            for b in 0..32 {
                if (self.u_in[s].val() & self.unpad[32 * s + b].val()).xor() {
                    self.u_prod[s].next = self.u_prod[s].val() | self.one_hot[b].val();
                }
            }
            self.u_res[s].next = self.u_in[s].val();
            if self.u_k[s].val().get_bit(s) {
                self.u_res[s].next = self.u_prod[s].val();
            }
        }
        for s in 0..5 {
            self.u_reg[s].d.next = self.u_res[s].val();
        }
        self.u_reg[5].d.next = self.u_res[5].val() ^ self.ones32.val();
        self.out_valid.next = self.u_done[5].q.val();
        self.out_crc.next = self.u_reg[5].q.val();
    }
}
