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
use rnic_spec::wire::crc::{crc32_update, RESIDUE};
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


impl Default for Crc32Check {
    fn default() -> Self {
        // data_masks[i] has bit j set when input bit j flips CRC bit i.
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
        let mut smask = [0u32; 32];
        for j in 0..32 {
            let crc = beat_update(1 << j, &[0; BEAT_BYTES]);
            for (i, m) in smask.iter_mut().enumerate() {
                if crc >> i & 1 == 1 {
                    *m |= 1 << j;
                }
            }
        }
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
            data_masks: std::array::from_fn(|i| Constant::new(bits512_from_bytes(&dmask[i]))),
            state_masks: std::array::from_fn(|i| c::<32>(smask[i] as u64)),
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
