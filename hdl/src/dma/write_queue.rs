//! A queue in front of the DMA write engine for one writer (the responder's payload writes):
//! commands and their data beats go in as fast as the writer produces them and wait in block
//! RAM for the shared engine, so the writer moves on to its next packet instead of waiting for
//! the write arbiter, the engine's planning and the host's AXI handshakes (4 to 6 cycles per
//! command before the first beat is taken).
//!
//! Order is kept: commands leave in the order they came, and each command's beats follow the
//! beats of the commands before it. `idle` says nothing is queued (nor fetched ahead), so an
//! arbiter that lets another writer in only while this queue is idle keeps that writer's later
//! commands (a receive CQE) behind every payload write queued before them.

use crate::ram_fifo::RamFifo;
use crate::stream::c;
use rust_hdl::prelude::*;

/// Commands queued at most (pointers carry one bit more than the RAM's 4 address bits).
const CMD_DEPTH: u64 = 16;
/// Data beats queued at most: a 4 KiB packet's payload.
const DATA_DEPTH: u64 = 64;

crate::hdl_block! {
    pub struct WriteQueue {
        pub clock: Signal<In, Clock>,
        /// The writer's side: a command (host address, length in bytes) and its
        /// ceil(len / 64) data beats, as `DmaWrite` takes them.
        pub cmd_valid: Signal<In, Bit>,
        pub cmd_ready: Signal<Out, Bit>,
        pub cmd_addr: Signal<In, Bits<64>>,
        pub cmd_len: Signal<In, Bits<16>>,
        pub in_valid: Signal<In, Bit>,
        pub in_ready: Signal<Out, Bit>,
        pub in_data: Signal<In, Bits<512>>,
        /// The engine's side.
        pub out_cmd_valid: Signal<Out, Bit>,
        pub out_cmd_ready: Signal<In, Bit>,
        pub out_cmd_addr: Signal<Out, Bits<64>>,
        pub out_cmd_len: Signal<Out, Bits<16>>,
        pub out_valid: Signal<Out, Bit>,
        pub out_ready: Signal<In, Bit>,
        pub out_data: Signal<Out, Bits<512>>,
        /// No command is queued.
        pub idle: Signal<Out, Bit>,

        cmds: RamFifo<5, 4, 64, 16, 1>,
        beats: RamFifo<7, 6, 512, 1, 1>,
        cmd_tail: DFF<Bits<5>>,
        beat_tail: DFF<Bits<7>>,
        one5: Constant<Bits<5>> = c::<5>(1),
        one7: Constant<Bits<7>> = c::<7>(1),
        cmd_depth: Constant<Bits<5>> = c::<5>(CMD_DEPTH),
        data_depth: Constant<Bits<7>> = c::<7>(DATA_DEPTH),
        zero1: Constant<Bits<1>> = c::<1>(0),
    }
}

impl Logic for WriteQueue {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cmd_tail, beat_tail);
        self.cmds.clock.next = self.clock.val();
        self.beats.clock.next = self.clock.val();
        // (Readies from registers only: see the requester on valid / ready.)
        self.cmd_ready.next = (self.cmd_tail.q.val() - self.cmds.head.val()) != self.cmd_depth.val();
        self.cmds.wr_en.next = self.cmd_valid.val() & self.cmd_ready.val();
        self.cmds.wr_addr.next = self.cmd_tail.q.val().get_bits::<4>(0);
        self.cmds.wr_a.next = self.cmd_addr.val();
        self.cmds.wr_b.next = self.cmd_len.val();
        self.cmds.wr_c.next = self.zero1.val();
        self.cmds.tail.next = self.cmd_tail.q.val();
        if self.cmd_valid.val() & self.cmd_ready.val() {
            self.cmd_tail.d.next = self.cmd_tail.q.val() + self.one5.val();
        }
        self.in_ready.next = (self.beat_tail.q.val() - self.beats.head.val()) != self.data_depth.val();
        self.beats.wr_en.next = self.in_valid.val() & self.in_ready.val();
        self.beats.wr_addr.next = self.beat_tail.q.val().get_bits::<6>(0);
        self.beats.wr_a.next = self.in_data.val();
        self.beats.wr_b.next = self.zero1.val();
        self.beats.wr_c.next = self.zero1.val();
        self.beats.tail.next = self.beat_tail.q.val();
        if self.in_valid.val() & self.in_ready.val() {
            self.beat_tail.d.next = self.beat_tail.q.val() + self.one7.val();
        }
        self.out_cmd_valid.next = self.cmds.out_valid.val();
        self.cmds.out_ready.next = self.out_cmd_ready.val();
        self.out_cmd_addr.next = self.cmds.out_a.val();
        self.out_cmd_len.next = self.cmds.out_b.val();
        self.out_valid.next = self.beats.out_valid.val();
        self.beats.out_ready.next = self.out_ready.val();
        self.out_data.next = self.beats.out_a.val();
        self.idle.next = self.cmd_tail.q.val() == self.cmds.head.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    /// Random pushes and pops on both sides: every command and beat comes out once, in order,
    /// and the queue says idle exactly when every command pushed has left.
    #[test]
    fn commands_and_beats_leave_in_order_under_random_backpressure() {
        let mut uut = WriteQueue::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(2, |x: &mut Box<WriteQueue>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut ep: Sim<WriteQueue>| {
            let mut x = ep.init()?;
            wait_clock_false!(ep, clock, x);
            let mut rng = 0x1234_5678_9abc_def0u64;
            let (mut cmd_in, mut cmd_out, mut beat_in, mut beat_out) = (0u64, 0u64, 0u64, 0u64);
            for _ in 0..4000 {
                let r = xorshift(&mut rng);
                x.cmd_valid.next = r & 1 == 1 && cmd_in < 600;
                x.cmd_addr.next = (0x1000 + cmd_in * 64).into();
                x.cmd_len.next = (cmd_in & 0x7FF).into();
                x.in_valid.next = r & 2 == 2 && beat_in < 1500;
                x.in_data.next = Bits::<512>::from(beat_in) << 100;
                x.out_cmd_ready.next = r & 4 == 4;
                x.out_ready.next = r & 8 == 8;
                // (Settled in the clock's low half; the handshakes happen at the next edge.)
                x = ep.wait(1, x)?;
                sim_assert!(ep, (x.idle.val()) == (cmd_in == cmd_out), x);
                let (cin, bin) = (x.cmd_valid.val() && x.cmd_ready.val(), x.in_valid.val() && x.in_ready.val());
                if x.out_cmd_valid.val() && x.out_cmd_ready.val() {
                    sim_assert_eq!(ep, x.out_cmd_addr.val(), Bits::<64>::from(0x1000 + cmd_out * 64), x);
                    sim_assert_eq!(ep, x.out_cmd_len.val(), Bits::<16>::from(cmd_out & 0x7FF), x);
                    cmd_out += 1;
                }
                if x.out_valid.val() && x.out_ready.val() {
                    sim_assert_eq!(ep, x.out_data.val(), Bits::<512>::from(beat_out) << 100, x);
                    beat_out += 1;
                }
                cmd_in += cin as u64;
                beat_in += bin as u64;
                sim_assert!(ep, cmd_in - cmd_out <= CMD_DEPTH && beat_in - beat_out <= DATA_DEPTH, x);
                wait_clock_cycle!(ep, clock, x);
            }
            sim_assert!(ep, cmd_in == 600 && cmd_out == 600 && beat_in == 1500 && beat_out == 1500, x);
            ep.done(x)
        });
        sim.run(Box::new(uut), 100_000).unwrap();
    }
}
