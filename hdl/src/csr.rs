//! The BAR0 register file: an AXI4-Lite slave generated from `rnic_spec::regs`.
//!
//! Block headers and constants become a table of (address, value) constants; control registers
//! become flip-flops with their reset values; status registers are read from the datapath
//! through `status_sel` / `status_value` (the NIC top maps each status index to its source),
//! which gives the datapath two cycles to answer. Command registers (doorbells, table commits)
//! hand each written value to the datapath as a one-cycle pulse on `command_valid` the cycle
//! after the write, and read back as the last value written. One read or write at a time: a write takes
//! its address and data in the same cycle (AWVALID and WVALID both high), a read answers three
//! cycles after its address. Undefined addresses read as 0 and ignore writes; every response
//! is OKAY, as a PCIe BAR must not fault.

use crate::stream::c;
use rnic_spec::regs::{count, registers, reset_image, Access, BAR0_ADDR_BITS};
use rust_hdl::prelude::*;

/// Registers of each kind in the map.
pub const N_CONST: usize = 3 * rnic_spec::regs::BLOCKS.len() + count(Access::Const);
pub const N_CONTROL: usize = count(Access::Control);
pub const N_STATUS: usize = count(Access::Status);
pub const N_COMMAND: usize = count(Access::Command);
/// Word address bits (byte address without its two low bits).
const WA: usize = BAR0_ADDR_BITS - 2;

fn word(addr: u32) -> Constant<Bits<WA>> {
    c::<WA>((addr >> 2) as u64)
}

/// Header words and constants: everything in the reset image that is not a control register.
fn const_words() -> Vec<(u32, u32)> {
    let written: Vec<u32> =
        registers(Access::Control).iter().chain(registers(Access::Command).iter()).map(|(a, _)| *a).collect();
    let words: Vec<(u32, u32)> = reset_image().into_iter().filter(|(a, _)| !written.contains(a)).collect();
    assert_eq!(words.len(), N_CONST);
    words
}

crate::hdl_block! {
    pub struct Csr {
        pub clock: Signal<In, Clock>,
        pub awvalid: Signal<In, Bit>,
        pub awready: Signal<Out, Bit>,
        pub awaddr: Signal<In, Bits<BAR0_ADDR_BITS>>,
        pub wvalid: Signal<In, Bit>,
        pub wready: Signal<Out, Bit>,
        pub wdata: Signal<In, Bits<32>>,
        pub wstrb: Signal<In, Bits<4>>,
        pub bvalid: Signal<Out, Bit>,
        pub bready: Signal<In, Bit>,
        pub bresp: Signal<Out, Bits<2>>,
        pub arvalid: Signal<In, Bit>,
        pub arready: Signal<Out, Bit>,
        pub araddr: Signal<In, Bits<BAR0_ADDR_BITS>>,
        pub rvalid: Signal<Out, Bit>,
        pub rready: Signal<In, Bit>,
        pub rdata: Signal<Out, Bits<32>>,
        pub rresp: Signal<Out, Bits<2>>,
        /// Control registers in map order (`regs::registers(Access::Control)`).
        pub control: [Signal<Out, Bits<32>>; N_CONTROL] = std::array::from_fn(|_| Default::default()),
        /// Status register being read, by status index; its value is sampled two cycles later.
        pub status_sel: Signal<Out, Bits<8>>,
        pub status_value: Signal<In, Bits<32>>,
        /// Command registers in map order (`regs::registers(Access::Command)`): the value
        /// written, and a pulse the cycle after each write.
        pub command: [Signal<Out, Bits<32>>; N_COMMAND],
        pub command_valid: [Signal<Out, Bit>; N_COMMAND],

        const_addr: [Constant<Bits<WA>>; N_CONST] = {
            let w = const_words();
            std::array::from_fn(|i| word(w[i].0))
        },
        const_value: [Constant<Bits<32>>; N_CONST] = {
            let w = const_words();
            std::array::from_fn(|i| c::<32>(w[i].1 as u64))
        },
        control_addr: [Constant<Bits<WA>>; N_CONTROL] = {
            let r = registers(Access::Control);
            std::array::from_fn(|i| word(r[i].0))
        },
        control_reset: [Constant<Bits<32>>; N_CONTROL] = {
            let r = registers(Access::Control);
            std::array::from_fn(|i| c::<32>(r[i].1.reset as u64))
        },
        status_addr: [Constant<Bits<WA>>; N_STATUS] = {
            let r = registers(Access::Status);
            std::array::from_fn(|i| word(r[i].0))
        },
        command_addr: [Constant<Bits<WA>>; N_COMMAND] = {
            let r = registers(Access::Command);
            std::array::from_fn(|i| word(r[i].0))
        },
        status_id: [Constant<Bits<8>>; N_STATUS] = std::array::from_fn(|i| c::<8>(i as u64)),
        byte_mask: [Constant<Bits<32>>; 4] = std::array::from_fn(|i| c::<32>(0xFF << (8 * i))),
        zero32: Constant<Bits<32>> = c::<32>(0),
        okay: Constant<Bits<2>> = c::<2>(0),
        one2: Constant<Bits<2>> = c::<2>(1),
        two2: Constant<Bits<2>> = c::<2>(2),
        three2: Constant<Bits<2>> = c::<2>(3),

        /// Control registers start from their reset values: rust-hdl flops reset to 0, so they
        /// hold `value XOR reset`.
        regs: [DFF<Bits<32>>; N_CONTROL] = std::array::from_fn(|_| Default::default()),
        commands: [DFF<Bits<32>>; N_COMMAND],
        command_pulse: [DFF<Bit>; N_COMMAND],
        b_pending: DFF<Bit>,
        r_addr: DFF<Bits<WA>>,
        /// Read in progress: 1 address latched, 2 status sampled, 3 data valid.
        r_state: DFF<Bits<2>>,
        r_is_status: DFF<Bit>,
        r_data: DFF<Bits<32>>,
        r_sel: DFF<Bits<8>>,

        write: Signal<Local, Bit>,
        waddr: Signal<Local, Bits<WA>>,
        wmask: Signal<Local, Bits<32>>,
        raddr: Signal<Local, Bits<WA>>,
        value: [Signal<Local, Bits<32>>; N_CONTROL] = std::array::from_fn(|_| Default::default()),
        lookup: Signal<Local, Bits<32>>,
        is_status: Signal<Local, Bit>,
        sel: Signal<Local, Bits<8>>,
    }
}

impl Logic for Csr {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, b_pending, r_addr, r_state, r_is_status, r_data, r_sel);
        for i in 0..N_CONTROL {
            self.regs[i].clock.next = self.clock.val();
            self.regs[i].d.next = self.regs[i].q.val();
            self.value[i].next = self.regs[i].q.val() ^ self.control_reset[i].val();
            self.control[i].next = self.value[i].val();
        }
        for i in 0..N_COMMAND {
            self.commands[i].clock.next = self.clock.val();
            self.commands[i].d.next = self.commands[i].q.val();
            self.command_pulse[i].clock.next = self.clock.val();
            self.command_pulse[i].d.next = false;
            self.command[i].next = self.commands[i].q.val();
            self.command_valid[i].next = self.command_pulse[i].q.val();
        }

        // Writes: address and data together, one response at a time.
        self.write.next = self.awvalid.val() & self.wvalid.val() & !self.b_pending.q.val();
        self.awready.next = self.write.val();
        self.wready.next = self.write.val();
        self.waddr.next = self.awaddr.val().get_bits::<WA>(2);
        self.wmask.next = self.zero32.val();
        for b in 0..4 {
            if self.wstrb.val().get_bit(b) {
                self.wmask.next = self.wmask.val() | self.byte_mask[b].val();
            }
        }
        for i in 0..N_CONTROL {
            if self.write.val() & (self.waddr.val() == self.control_addr[i].val()) {
                self.regs[i].d.next = ((self.value[i].val() & !self.wmask.val()) | (self.wdata.val() & self.wmask.val()))
                    ^ self.control_reset[i].val();
            }
        }
        for i in 0..N_COMMAND {
            if self.write.val() & (self.waddr.val() == self.command_addr[i].val()) {
                self.commands[i].d.next = (self.commands[i].q.val() & !self.wmask.val()) | (self.wdata.val() & self.wmask.val());
                self.command_pulse[i].d.next = true;
            }
        }
        if self.write.val() {
            self.b_pending.d.next = true;
        }
        if self.b_pending.q.val() & self.bready.val() {
            self.b_pending.d.next = false;
        }
        self.bvalid.next = self.b_pending.q.val();
        self.bresp.next = self.okay.val();

        // Reads: latch the address, ask the datapath for a status register, answer.
        self.arready.next = !self.r_state.q.val().any();
        if self.arvalid.val() & !self.r_state.q.val().any() {
            self.r_addr.d.next = self.araddr.val().get_bits::<WA>(2);
            self.r_state.d.next = self.one2.val();
        }
        self.raddr.next = self.r_addr.q.val();
        self.lookup.next = self.zero32.val();
        for i in 0..N_CONST {
            if self.raddr.val() == self.const_addr[i].val() {
                self.lookup.next = self.const_value[i].val();
            }
        }
        for i in 0..N_CONTROL {
            if self.raddr.val() == self.control_addr[i].val() {
                self.lookup.next = self.value[i].val();
            }
        }
        for i in 0..N_COMMAND {
            if self.raddr.val() == self.command_addr[i].val() {
                self.lookup.next = self.commands[i].q.val();
            }
        }
        self.is_status.next = false;
        self.sel.next = self.status_id[0].val();
        for i in 0..N_STATUS {
            if self.raddr.val() == self.status_addr[i].val() {
                self.is_status.next = true;
                self.sel.next = self.status_id[i].val();
            }
        }
        if self.r_state.q.val() == self.one2.val() {
            self.r_state.d.next = self.r_state.q.val() + self.one2.val();
            self.r_data.d.next = self.lookup.val();
            self.r_is_status.d.next = self.is_status.val();
            self.r_sel.d.next = self.sel.val();
        }
        self.status_sel.next = self.r_sel.q.val();
        if self.r_state.q.val() == self.two2.val() {
            self.r_state.d.next = self.three2.val();
            if self.r_is_status.q.val() {
                self.r_data.d.next = self.status_value.val();
            }
        }
        if (self.r_state.q.val() == self.three2.val()) & self.rready.val() {
            self.r_state.d.next = self.okay.val();
        }
        self.rvalid.next = self.r_state.q.val() == self.three2.val();
        self.rdata.next = self.r_data.q.val();
        self.rresp.next = self.okay.val();
    }
}
