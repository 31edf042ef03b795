//! CRC-32 over a 512-bit stream at one beat per cycle, checked against the residue.
//!
//! Used twice on the receive path: for the Ethernet FCS and for the RoCE ICRC. The CRC is
//! linear, so one beat's update splits into a feed-forward part that depends only on the data
//! (`M_d · data`, 32 parities of up to 512 bits, pipelined) and a short feedback part
//! (`M_s · state`, 32 parities of 32 bits). All matrices are computed in plain Rust from
//! `rnic_spec::wire::crc` when the block is built.
//!
//! A short last beat is processed as a full beat with its missing bytes zeroed, which is the
//! same as appending `k` zero bytes to the message. Instead of undoing them, the check compares
//! against the residue advanced by the same `k` zero bytes (64 constants).
//!
//! Timing: input registered (stage 1: byte masking), data parities (stage 2), state feedback
//! (stage 3), comparison (stage 4). `out_valid` pulses 4 cycles after the last beat's input.

use crate::stream::{bits512_from_bytes, c, lanes, one_hot, BEAT_BYTES};
use rnic_spec::wire::crc::{crc32_rewind_zeros, crc32_update, RESIDUE};
use rust_hdl::prelude::*;

/// Input-to-verdict latency of [`Crc32Check`] in cycles.
pub const CRC_CHECK_LATENCY: usize = 4;

#[derive(LogicBlock)]
pub struct Crc32Check {
    pub clock: Signal<In, Clock>,
    /// A beat of the message is present.
    pub in_valid: Signal<In, Bit>,
    /// First beat: the CRC starts from `in_init` instead of the running state.
    pub in_first: Signal<In, Bit>,
    /// Last beat: the verdict for the message follows after the latency.
    pub in_last: Signal<In, Bit>,
    /// Register value the message starts from (0xFFFFFFFF for plain CRC-32).
    pub in_init: Signal<In, Bits<32>>,
    pub in_data: Signal<In, Bits<512>>,
    /// Valid bytes of this beat, 1..=64, in the low bytes; the rest are ignored.
    pub in_count: Signal<In, Bits<7>>,
    /// Pulses once per message, `CRC_CHECK_LATENCY` cycles after its last beat.
    pub out_valid: Signal<Out, Bit>,
    /// The message ended with its correct little-endian CRC.
    pub out_ok: Signal<Out, Bit>,

    zero: Constant<Bits<512>>,
    zero64: Constant<Bits<64>>,
    zero32: Constant<Bits<32>>,
    lane: [Constant<Bits<512>>; 64],
    data_masks: [Constant<Bits<512>>; 32],
    state_masks: [Constant<Bits<32>>; 32],
    /// `residue_lanes[b]` has bit k set when bit b of the residue after k zero bytes is set.
    residue_lanes: [Constant<Bits<64>>; 32],
    /// `pad_count[k]`: the byte count that leaves k bytes of a beat empty.
    pad_count: [Constant<Bits<7>>; 64],
    pad_hot: [Constant<Bits<64>>; 64],
    one_hot: [Constant<Bits<32>>; 32],

    s1_valid: DFF<Bit>,
    s1_first: DFF<Bit>,
    s1_last: DFF<Bit>,
    s1_init: DFF<Bits<32>>,
    s1_data: DFF<Bits<512>>,
    s1_pad: DFF<Bits<64>>,
    s2_valid: DFF<Bit>,
    s2_first: DFF<Bit>,
    s2_last: DFF<Bit>,
    s2_init: DFF<Bits<32>>,
    s2_contrib: DFF<Bits<32>>,
    s2_pad: DFF<Bits<64>>,
    s3_state: DFF<Bits<32>>,
    s3_last: DFF<Bit>,
    s3_expect: DFF<Bits<32>>,
    s4_valid: DFF<Bit>,
    s4_ok: DFF<Bit>,

    keep: Signal<Local, Bits<512>>,
    pad: Signal<Local, Bits<64>>,
    residue_now: Signal<Local, Bits<32>>,
    contrib: Signal<Local, Bits<32>>,
    prev_state: Signal<Local, Bits<32>>,
    next_state: Signal<Local, Bits<32>>,
}

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

impl Default for Crc32Check {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            in_valid: Default::default(),
            in_first: Default::default(),
            in_last: Default::default(),
            in_init: Default::default(),
            in_data: Default::default(),
            in_count: Default::default(),
            out_valid: Default::default(),
            out_ok: Default::default(),
            zero: Constant::new(Bits::default()),
            zero64: c::<64>(0),
            zero32: c::<32>(0),
            lane: lanes(),
            data_masks: data_masks(),
            state_masks: register_map(|r| beat_update(r, &[0; BEAT_BYTES])),
            residue_lanes: std::array::from_fn(|b| {
                let lanes = (0..64).filter(|&k| crc32_update(RESIDUE, &vec![0; k]) >> b & 1 == 1);
                c::<64>(lanes.fold(0u64, |m, k| m | 1 << k))
            }),
            pad_count: std::array::from_fn(|k| c::<7>((BEAT_BYTES - k) as u64)),
            pad_hot: std::array::from_fn(|k| c::<64>(1 << k)),
            one_hot: one_hot::<32>(),
            s1_valid: Default::default(),
            s1_first: Default::default(),
            s1_last: Default::default(),
            s1_init: Default::default(),
            s1_data: Default::default(),
            s1_pad: Default::default(),
            s2_valid: Default::default(),
            s2_first: Default::default(),
            s2_last: Default::default(),
            s2_init: Default::default(),
            s2_contrib: Default::default(),
            s2_pad: Default::default(),
            s3_state: Default::default(),
            s3_last: Default::default(),
            s3_expect: Default::default(),
            s4_valid: Default::default(),
            s4_ok: Default::default(),
            keep: Default::default(),
            pad: Default::default(),
            residue_now: Default::default(),
            contrib: Default::default(),
            prev_state: Default::default(),
            next_state: Default::default(),
        }
    }
}

impl Logic for Crc32Check {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_valid, s1_first, s1_last, s1_init, s1_data, s1_pad, s2_valid,
            s2_first, s2_last, s2_init, s2_contrib, s2_pad, s3_state, s3_last, s3_expect,
            s4_valid, s4_ok
        );
        // Stage 1: zero the bytes past in_count; remember how many were zeroed.
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
        // The number of empty bytes, one-hot, so the residue lookup is a row of ORs.
        self.pad.next = self.zero64.val();
        for k in 0..64 {
            if self.in_count.val() == self.pad_count[k].val() {
                self.pad.next = self.pad.val() | self.pad_hot[k].val();
            }
        }
        self.s1_pad.d.next = self.pad.val();

        // Stage 2: the data's contribution, one parity per CRC bit.
        self.contrib.next = 0.into();
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

        // Stage 3: state feedback; pick the expected residue for this beat's zero padding.
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
        self.s3_last.d.next = self.s2_valid.q.val() & self.s2_last.q.val();
        self.residue_now.next = self.zero32.val();
        for b in 0..32 {
            if (self.s2_pad.q.val() & self.residue_lanes[b].val()).any() {
                self.residue_now.next = self.residue_now.val() | self.one_hot[b].val();
            }
        }
        self.s3_expect.d.next = self.residue_now.val();

        // Stage 4: verdict.
        self.s4_valid.d.next = self.s3_last.q.val();
        self.s4_ok.d.next = self.s3_state.q.val() == self.s3_expect.q.val();
        self.out_valid.next = self.s4_valid.q.val();
        self.out_ok.next = self.s4_ok.q.val();
    }
}

/// Input-to-result latency of [`Crc32Gen`] in cycles.
pub const CRC_GEN_LATENCY: usize = 6;

crate::hdl_block! {
    /// CRC-32 of a 512-bit stream at one beat per cycle, for appending (the FCS and the ICRC
    /// on the transmit path).
    ///
    /// Stages 1–3 are those of [`Crc32Check`]: a short last beat is run as a full beat with
    /// `k` zero bytes appended, which multiplies the register by `Z^k` (`Z`: one zero byte).
    /// Stages 4–6 undo that with `Z^-1`, `Z^-2`, … `Z^-32` chosen by the bits of `k`, two per
    /// stage, and stage 6 applies the final XOR.
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

        zero: Constant<Bits<512>> = Constant::new(Bits::default()),
        zero32: Constant<Bits<32>> = c::<32>(0),
        ones32: Constant<Bits<32>> = c::<32>(0xFFFF_FFFF),
        beat7: Constant<Bits<7>> = c::<7>(BEAT_BYTES as u64),
        lane: [Constant<Bits<512>>; 64] = lanes(),
        data_masks: [Constant<Bits<512>>; 32] = data_masks(),
        state_masks: [Constant<Bits<32>>; 32] = register_map(|r| beat_update(r, &[0; BEAT_BYTES])),
        /// `unpad[32 * i + b]`: row b of the map from the register after `2^i` zero bytes to
        /// the register before them (flat: rust-hdl has no nested arrays).
        unpad: [Constant<Bits<32>>; 192] = {
            let maps: Vec<_> = (0..6).map(|i| register_map(|r| crc32_rewind_zeros(r, 1 << i))).collect();
            std::array::from_fn(|k| maps[k / 32][k % 32])
        },
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
        u_done: [DFF<Bit>; 3],
        u_reg: [DFF<Bits<32>>; 3],
        u_pad: [DFF<Bits<6>>; 2],

        keep: Signal<Local, Bits<512>>,
        empty: Signal<Local, Bits<7>>,
        contrib: Signal<Local, Bits<32>>,
        prev_state: Signal<Local, Bits<32>>,
        next_state: Signal<Local, Bits<32>>,
        u_in: [Signal<Local, Bits<32>>; 3],
        u_k: [Signal<Local, Bits<6>>; 3],
        u_prod: [Signal<Local, Bits<32>>; 3],
        u_mid: [Signal<Local, Bits<32>>; 3],
        u_out: [Signal<Local, Bits<32>>; 3],
        u_res: [Signal<Local, Bits<32>>; 3],
    }
}

impl Logic for Crc32Gen {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_valid, s1_first, s1_last, s1_init, s1_data, s1_pad, s2_valid, s2_first,
            s2_last, s2_init, s2_contrib, s2_pad, s3_state, s3_done, s3_pad
        );
        for i in 0..3 {
            self.u_done[i].clock.next = self.clock.val();
            self.u_reg[i].clock.next = self.clock.val();
        }
        for i in 0..2 {
            self.u_pad[i].clock.next = self.clock.val();
        }
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

        // Stages 4-6: take the padding back out, two bits of k per stage.
        self.u_in[0].next = self.s3_state.q.val();
        self.u_in[1].next = self.u_reg[0].q.val();
        self.u_in[2].next = self.u_reg[1].q.val();
        self.u_done[0].d.next = self.s3_done.q.val();
        self.u_done[1].d.next = self.u_done[0].q.val();
        self.u_done[2].d.next = self.u_done[1].q.val();
        self.u_pad[0].d.next = self.s3_pad.q.val();
        self.u_pad[1].d.next = self.u_pad[0].q.val();
        self.u_k[0].next = self.s3_pad.q.val();
        self.u_k[1].next = self.u_pad[0].q.val();
        self.u_k[2].next = self.u_pad[1].q.val();
        for s in 0..3 {
            // u_mid = Z^-(2^2s) · u_in if bit 2s of k, then u_res = Z^-(2^(2s+1)) · u_mid if bit 2s+1.
            self.u_prod[s].next = self.zero32.val();
            for b in 0..32 {
                if (self.u_in[s].val() & self.unpad[64 * s + b].val()).xor() {
                    self.u_prod[s].next = self.u_prod[s].val() | self.one_hot[b].val();
                }
            }
            self.u_mid[s].next = self.u_in[s].val();
            if self.u_k[s].val().get_bit(2 * s) {
                self.u_mid[s].next = self.u_prod[s].val();
            }
            self.u_out[s].next = self.zero32.val();
            for b in 0..32 {
                if (self.u_mid[s].val() & self.unpad[64 * s + 32 + b].val()).xor() {
                    self.u_out[s].next = self.u_out[s].val() | self.one_hot[b].val();
                }
            }
            self.u_res[s].next = self.u_mid[s].val();
            if self.u_k[s].val().get_bit(2 * s + 1) {
                self.u_res[s].next = self.u_out[s].val();
            }
        }
        self.u_reg[0].d.next = self.u_res[0].val();
        self.u_reg[1].d.next = self.u_res[1].val();
        self.u_reg[2].d.next = self.u_res[2].val() ^ self.ones32.val();
        self.out_valid.next = self.u_done[2].q.val();
        self.out_crc.next = self.u_reg[2].q.val();
    }
}
