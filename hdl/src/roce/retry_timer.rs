//! Per-QP retransmission timers: the local ACK timeout and the RNR NAK wait, one timer per QP,
//! in ticks of `rnic_spec::retry::TICK_CYCLES` (4.096 µs).
//!
//! A timer is a start tick and, for an RNR wait, its length in a block RAM, plus an armed
//! bit per QP in registers. A scanner reads one QP per cycle, so every timer is looked at
//! every 256 cycles (1 µs, a quarter tick): a timer fires after more than its ticks passed
//! and at most a tick and a scan later. The ACK timeout's length is the QP's `timeout`
//! (4.096 µs × 2^timeout, 0 = off), kept here from its commit.
//!
//! - `kick` (a WQE was sent): arms the ACK timer from now unless it is armed already — the
//!   timer measures from the oldest unacknowledged send, not the newest.
//! - `cmd` (the completer, after an acknowledge or an expiry): arms the ACK timer from now,
//!   arms an RNR wait of `cmd_ticks`, or disarms. It has the RAM's write port first; a kick
//!   in the same cycle is not taken (its sender holds it).
//! - `touch` (a READ response was placed): an armed timer starts again from now, as an ACK
//!   timer (a READ progressing is not timed out mid-transfer), and is marked `touched`; taken
//!   only in a cycle without a command or a kick write (it is a heartbeat: the next response
//!   touches again). An expiry says whether its timer was touched since the completer last
//!   armed it (`exp_touched`): responses were placed, which is progress — the completer's retry
//!   count starts again before the timeout uses one, so a long READ whose responses keep
//!   arriving in part is not given up.
//! - `exp` (valid/ready): a timer fired; taking it disarms the timer. A timer written in the
//!   cycles it is read is looked at again on the next round, so a re-armed timer never fires
//!   with its old start.

use crate::pack_word;
use crate::stream::c;
use rnic_spec::regs::{QPS, QP_SLOT_BITS};
use rnic_spec::retry::TICK_CYCLES;
use rust_hdl::prelude::*;

const QPS_BITS: usize = QPS as usize;
const TICK_BITS: usize = 10;
const _: () = assert!(TICK_CYCLES == 1 << TICK_BITS);

pack_word! {
    /// A timer: its start tick, an RNR wait's length, and which kind it is.
    lsb_first TimerWord: 66 { start: 32, ticks: 32, rnr: 1, touched: 1 }
}

crate::hdl_block! {
    pub struct RetryTimer {
        pub clock: Signal<In, Clock>,
        /// `qp.commit` with the staged `qp.retry` word (timeout in bits 4:0): the timer stops.
        pub qp_commit_valid: Signal<In, Bit>,
        pub qp_commit: Signal<In, Bits<32>>,
        pub qp_retry: Signal<In, Bits<32>>,
        /// From the completer: `cmd_arm` (else disarm), `cmd_rnr` with `cmd_ticks` (else the
        /// ACK timeout).
        pub cmd_valid: Signal<In, Bit>,
        pub cmd_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub cmd_arm: Signal<In, Bit>,
        pub cmd_rnr: Signal<In, Bit>,
        pub cmd_ticks: Signal<In, Bits<32>>,
        /// A WQE of `kick_qp` was sent; the kick is taken in a cycle without `cmd_valid` (the
        /// sender spells that out itself: a ready port would join both blocks' logic).
        pub kick_valid: Signal<In, Bit>,
        pub kick_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub touch_valid: Signal<In, Bit>,
        pub touch_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        /// A timer fired.
        pub exp_valid: Signal<Out, Bit>,
        pub exp_ready: Signal<In, Bit>,
        pub exp_qp: Signal<Out, Bits<QP_SLOT_BITS>>,
        pub exp_rnr: Signal<Out, Bit>,
        pub exp_touched: Signal<Out, Bit>,

        ram: RAM<Bits<66>, QP_SLOT_BITS>,
        tmo_ram: RAM<Bits<5>, QP_SLOT_BITS>,
        t_word: TimerWord,
        armed: DFF<Bits<QPS_BITS>>,
        prescale: DFF<Bits<TICK_BITS>>,
        now: DFF<Bits<32>>,
        scan: DFF<Bits<QP_SLOT_BITS>>,
        /// The QP whose RAM words arrive this cycle, and whether they were written meanwhile.
        look: DFF<Bits<QP_SLOT_BITS>>,
        stale: DFF<Bit>,
        e_valid: DFF<Bit>,
        e_qp: DFF<Bits<QP_SLOT_BITS>>,
        e_rnr: DFF<Bit>,
        e_touched: DFF<Bit>,

        commit_ok: Signal<Local, Bit>,
        commit_qp: Signal<Local, Bits<QP_SLOT_BITS>>,
        kick_armed: Signal<Local, Bits<QPS_BITS>>,
        kick_write: Signal<Local, Bit>,
        touch_armed: Signal<Local, Bits<QPS_BITS>>,
        touch_write: Signal<Local, Bit>,
        look_armed: Signal<Local, Bits<QPS_BITS>>,
        elapsed: Signal<Local, Bits<32>>,
        limit: Signal<Local, Bits<32>>,
        fired: Signal<Local, Bit>,
        take: Signal<Local, Bit>,
        set_mask: Signal<Local, Bits<QPS_BITS>>,
        clr_mask: Signal<Local, Bits<QPS_BITS>>,

        zero1: Constant<Bits<1>> = c::<1>(0),
        one1: Constant<Bits<1>> = c::<1>(1),
        zero5: Constant<Bits<5>> = c::<5>(0),
        zero32: Constant<Bits<32>> = c::<32>(0),
        zero24: Constant<Bits<24>> = c::<24>(0),
        one32: Constant<Bits<32>> = c::<32>(1),
        one_slot: Constant<Bits<QP_SLOT_BITS>> = c::<QP_SLOT_BITS>(1),
        one_tick: Constant<Bits<TICK_BITS>> = c::<TICK_BITS>(1),
        last_tick: Constant<Bits<TICK_BITS>> = c::<TICK_BITS>(TICK_CYCLES - 1),
        one_qp: Constant<Bits<QPS_BITS>> = Constant::new(bits::<QPS_BITS>(1)),
        no_qp: Constant<Bits<QPS_BITS>> = Constant::new(Bits::default()),
    }
}

impl Logic for RetryTimer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, armed, prescale, now, scan, look, stale, e_valid, e_qp, e_rnr, e_touched);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.tmo_ram.read_clock.next = self.clock.val();
        self.tmo_ram.write_clock.next = self.clock.val();

        // Time.
        self.prescale.d.next = self.prescale.q.val() + self.one_tick.val();
        if self.prescale.q.val() == self.last_tick.val() {
            self.now.d.next = self.now.q.val() + self.one32.val();
        }

        // Commits keep the QP's timeout and stop its timer.
        self.commit_ok.next = self.qp_commit_valid.val() & (self.qp_commit.val().get_bits::<24>(8) == self.zero24.val());
        self.commit_qp.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
        self.tmo_ram.write_enable.next = self.commit_ok.val();
        self.tmo_ram.write_address.next = self.commit_qp.val();
        self.tmo_ram.write_data.next = self.qp_retry.val().get_bits::<5>(0);

        // The RAM's write port: the completer's command, else a kick of a QP not armed yet.
        self.kick_armed.next = self.armed.q.val() >> self.kick_qp.val();
        self.kick_write.next = self.kick_valid.val() & !self.cmd_valid.val() & !self.kick_armed.val().get_bit(0);
        self.t_word.start.next = self.now.q.val();
        self.t_word.ticks.next = self.zero32.val();
        self.t_word.rnr.next = self.zero1.val();
        self.t_word.touched.next = self.zero1.val();
        self.touch_armed.next = self.armed.q.val() >> self.touch_qp.val();
        self.touch_write.next =
            self.touch_valid.val() & !self.cmd_valid.val() & !self.kick_write.val() & self.touch_armed.val().get_bit(0);
        self.ram.write_address.next = self.kick_qp.val();
        if self.touch_write.val() {
            self.ram.write_address.next = self.touch_qp.val();
            self.t_word.touched.next = self.one1.val();
        }
        if self.cmd_valid.val() {
            self.ram.write_address.next = self.cmd_qp.val();
            if self.cmd_rnr.val() {
                self.t_word.ticks.next = self.cmd_ticks.val();
                self.t_word.rnr.next = self.one1.val();
            }
        }
        self.ram.write_enable.next = (self.cmd_valid.val() & self.cmd_arm.val()) | self.kick_write.val() | self.touch_write.val();
        self.ram.write_data.next = self.t_word.word.val();

        // The scanner: one QP a cycle; its words arrive the next.
        self.scan.d.next = self.scan.q.val() + self.one_slot.val();
        self.ram.read_address.next = self.scan.q.val();
        self.tmo_ram.read_address.next = self.scan.q.val();
        self.look.d.next = self.scan.q.val();
        self.stale.d.next = (self.ram.write_enable.val() & (self.ram.write_address.val() == self.scan.q.val()))
            | (self.commit_ok.val() & (self.commit_qp.val() == self.scan.q.val()));
        self.look_armed.next = self.armed.q.val() >> self.look.q.val();
        self.elapsed.next = self.now.q.val() - self.ram.read_data.val().get_bits::<32>(0);
        self.limit.next = self.one32.val() << self.tmo_ram.read_data.val();
        if self.ram.read_data.val().get_bit(64) {
            self.limit.next = self.ram.read_data.val().get_bits::<32>(32);
        }
        // (Any command, kick or commit of the QP in this cycle also keeps it from firing.)
        self.fired.next = self.look_armed.val().get_bit(0)
            & !self.stale.q.val()
            & !(self.cmd_valid.val() & (self.cmd_qp.val() == self.look.q.val()))
            & !(self.kick_write.val() & (self.kick_qp.val() == self.look.q.val()))
            & !(self.touch_write.val() & (self.touch_qp.val() == self.look.q.val()))
            & !(self.commit_ok.val() & (self.commit_qp.val() == self.look.q.val()))
            & (self.ram.read_data.val().get_bit(64) | (self.tmo_ram.read_data.val() != self.zero5.val()))
            & (self.elapsed.val() > self.limit.val());

        // The expiry slot: filled when free (or being emptied); a timer found while it is
        // full fires on a later round.
        self.exp_valid.next = self.e_valid.q.val();
        self.exp_qp.next = self.e_qp.q.val();
        self.exp_rnr.next = self.e_rnr.q.val();
        self.exp_touched.next = self.e_touched.q.val();
        if self.exp_ready.val() {
            self.e_valid.d.next = false;
        }
        self.take.next = self.fired.val() & (!self.e_valid.q.val() | self.exp_ready.val());
        if self.take.val() {
            self.e_valid.d.next = true;
            self.e_qp.d.next = self.look.q.val();
            self.e_rnr.d.next = self.ram.read_data.val().get_bit(64);
            self.e_touched.d.next = self.ram.read_data.val().get_bit(65);
        }

        // Armed bits: a fired timer is disarmed as it goes out; commands and kicks win.
        self.set_mask.next = self.no_qp.val();
        if self.kick_write.val() {
            self.set_mask.next = self.one_qp.val() << self.kick_qp.val();
        }
        if self.cmd_valid.val() & self.cmd_arm.val() {
            self.set_mask.next = self.one_qp.val() << self.cmd_qp.val();
        }
        self.clr_mask.next = self.no_qp.val();
        if self.take.val() {
            self.clr_mask.next = self.one_qp.val() << self.look.q.val();
        }
        if self.cmd_valid.val() & !self.cmd_arm.val() {
            self.clr_mask.next = self.clr_mask.val() | (self.one_qp.val() << self.cmd_qp.val());
        }
        if self.commit_ok.val() {
            self.clr_mask.next = self.clr_mask.val() | (self.one_qp.val() << self.commit_qp.val());
        }
        self.armed.d.next = (self.armed.q.val() & !self.clr_mask.val()) | self.set_mask.val();
    }
}
