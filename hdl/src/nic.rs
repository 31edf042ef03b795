//! The NIC top, `rnic_nic`: the BAR0 register file, the receive pipeline and the transmit
//! engine around one Ethernet port.
//!
//! ```text
//!  BAR0 (AXI4-Lite) ─► Csr ─► port.control ─► fcs_enable of both directions
//!                       ▲ status_sel / status_value: receive counters, frames sent
//!  MAC rx (rx_*) ─► RoceRx ─► accepted records + payload (rxd_*), not-RoCE frames (host_*)
//!  descriptors (txd_*) + payload (txp_*) ─► RoceTx ─► MAC tx (tx_*)
//! ```
//!
//! The `txd_*` / `txp_*` inputs and `rxd_*` outputs are where the DMA queue manager will attach
//! (not built yet); until then the simulator drives them directly. The DMA AXI4 master port
//! comes with it.

use crate::csr::{Csr, N_STATUS};
use crate::roce::rx::{RoceRx, NUM_COUNTERS};
use crate::roce::tx::RoceTx;
use crate::roce::tx_header::LEN_BITS;
use crate::stream::c;
use rnic_spec::regs::{BAR0_ADDR_BITS, PORT_CONTROL_FCS};
use rust_hdl::prelude::*;

/// Status indexes (`regs::registers(Access::Status)` order): the receive counters (accepted,
/// one per drop reason, no_buffer), then frames sent.
const RX_STATUS: usize = NUM_COUNTERS + 1;
const _: () = assert!(N_STATUS == RX_STATUS + 1, "status registers: receive counters and frames sent");

crate::hdl_block! {
    pub struct Nic {
        pub clock: Signal<In, Clock>,
        pub bar_awvalid: Signal<In, Bit>,
        pub bar_awready: Signal<Out, Bit>,
        pub bar_awaddr: Signal<In, Bits<BAR0_ADDR_BITS>>,
        pub bar_wvalid: Signal<In, Bit>,
        pub bar_wready: Signal<Out, Bit>,
        pub bar_wdata: Signal<In, Bits<32>>,
        pub bar_wstrb: Signal<In, Bits<4>>,
        pub bar_bvalid: Signal<Out, Bit>,
        pub bar_bready: Signal<In, Bit>,
        pub bar_bresp: Signal<Out, Bits<2>>,
        pub bar_arvalid: Signal<In, Bit>,
        pub bar_arready: Signal<Out, Bit>,
        pub bar_araddr: Signal<In, Bits<BAR0_ADDR_BITS>>,
        pub bar_rvalid: Signal<Out, Bit>,
        pub bar_rready: Signal<In, Bit>,
        pub bar_rdata: Signal<Out, Bits<32>>,
        pub bar_rresp: Signal<Out, Bits<2>>,

        /// MAC receive stream (no ready: a MAC cannot wait).
        pub rx_valid: Signal<In, Bit>,
        pub rx_data: Signal<In, Bits<512>>,
        pub rx_keep: Signal<In, Bits<64>>,
        pub rx_last: Signal<In, Bit>,
        pub rx_user: Signal<In, Bit>,
        /// MAC transmit stream: whole frames.
        pub tx_valid: Signal<Out, Bit>,
        pub tx_ready: Signal<In, Bit>,
        pub tx_data: Signal<Out, Bits<512>>,
        pub tx_keep: Signal<Out, Bits<64>>,
        pub tx_last: Signal<Out, Bit>,

        /// Transmit descriptors and payload (see `RoceTx`).
        pub txd_valid: Signal<In, Bit>,
        pub txd_ready: Signal<Out, Bit>,
        pub txd_eth_dst: Signal<In, Bits<48>>,
        pub txd_eth_src: Signal<In, Bits<48>>,
        pub txd_vlan: Signal<In, Bit>,
        pub txd_vlan_tci: Signal<In, Bits<16>>,
        pub txd_ipv6: Signal<In, Bit>,
        pub txd_ip_src: Signal<In, Bits<128>>,
        pub txd_ip_dst: Signal<In, Bits<128>>,
        pub txd_dscp: Signal<In, Bits<6>>,
        pub txd_ecn: Signal<In, Bits<2>>,
        pub txd_ttl: Signal<In, Bits<8>>,
        pub txd_flow_label: Signal<In, Bits<20>>,
        pub txd_udp_src_port: Signal<In, Bits<16>>,
        pub txd_opcode: Signal<In, Bits<8>>,
        pub txd_se: Signal<In, Bit>,
        pub txd_pkey: Signal<In, Bits<16>>,
        pub txd_dest_qp: Signal<In, Bits<24>>,
        pub txd_ack_req: Signal<In, Bit>,
        pub txd_psn: Signal<In, Bits<24>>,
        pub txd_va: Signal<In, Bits<64>>,
        pub txd_rkey: Signal<In, Bits<32>>,
        pub txd_dma_len: Signal<In, Bits<32>>,
        pub txd_imm: Signal<In, Bits<32>>,
        pub txd_aeth_syndrome: Signal<In, Bits<8>>,
        pub txd_aeth_msn: Signal<In, Bits<24>>,
        pub txd_payload_len: Signal<In, Bits<LEN_BITS>>,
        pub txp_valid: Signal<In, Bit>,
        pub txp_ready: Signal<Out, Bit>,
        pub txp_data: Signal<In, Bits<512>>,

        /// Accepted frames (see `RoceRx`): records and payload.
        pub rxd_rec_valid: Signal<Out, Bit>,
        pub rxd_rec_ready: Signal<In, Bit>,
        pub rxd_rec_word0: Signal<Out, Bits<512>>,
        pub rxd_rec_word1: Signal<Out, Bits<512>>,
        pub rxd_pl_valid: Signal<Out, Bit>,
        pub rxd_pl_ready: Signal<In, Bit>,
        pub rxd_pl_data: Signal<Out, Bits<512>>,
        pub rxd_pl_keep: Signal<Out, Bits<64>>,
        pub rxd_pl_last: Signal<Out, Bit>,
        /// Frames that are not RoCE v2.
        pub host_valid: Signal<Out, Bit>,
        pub host_data: Signal<Out, Bits<512>>,
        pub host_keep: Signal<Out, Bits<64>>,
        pub host_last: Signal<Out, Bit>,
        pub host_user: Signal<Out, Bit>,
        /// Sticky internal-assumption failure of the receive pipeline.
        pub fault: Signal<Out, Bit>,

        csr: Csr,
        rx: RoceRx,
        tx: RoceTx,
        tx_frames_id: Constant<Bits<8>> = c::<8>(RX_STATUS as u64),
        fcs_bit: Constant<Bits<32>> = c::<32>(PORT_CONTROL_FCS as u64),
        fcs_enable: Signal<Local, Bit>,
    }
}

impl Logic for Nic {
    #[hdl_gen]
    fn update(&mut self) {
        self.csr.clock.next = self.clock.val();
        self.csr.awvalid.next = self.bar_awvalid.val();
        self.bar_awready.next = self.csr.awready.val();
        self.csr.awaddr.next = self.bar_awaddr.val();
        self.csr.wvalid.next = self.bar_wvalid.val();
        self.bar_wready.next = self.csr.wready.val();
        self.csr.wdata.next = self.bar_wdata.val();
        self.csr.wstrb.next = self.bar_wstrb.val();
        self.bar_bvalid.next = self.csr.bvalid.val();
        self.csr.bready.next = self.bar_bready.val();
        self.bar_bresp.next = self.csr.bresp.val();
        self.csr.arvalid.next = self.bar_arvalid.val();
        self.bar_arready.next = self.csr.arready.val();
        self.csr.araddr.next = self.bar_araddr.val();
        self.bar_rvalid.next = self.csr.rvalid.val();
        self.csr.rready.next = self.bar_rready.val();
        self.bar_rdata.next = self.csr.rdata.val();
        self.bar_rresp.next = self.csr.rresp.val();
        // control[0] is port.control (a test checks; index expressions must be literals).
        self.fcs_enable.next = (self.csr.control[0].val() & self.fcs_bit.val()).any();

        // Status: receive counters by index, then frames sent.
        self.rx.counter_sel.next = self.csr.status_sel.val().get_bits::<5>(0);
        self.csr.status_value.next = self.rx.counter.val();
        if self.csr.status_sel.val() == self.tx_frames_id.val() {
            self.csr.status_value.next = self.tx.frames.val();
        }

        self.rx.clock.next = self.clock.val();
        self.rx.fcs_enable.next = self.fcs_enable.val();
        self.rx.in_valid.next = self.rx_valid.val();
        self.rx.in_data.next = self.rx_data.val();
        self.rx.in_keep.next = self.rx_keep.val();
        self.rx.in_last.next = self.rx_last.val();
        self.rx.in_user.next = self.rx_user.val();
        self.rxd_rec_valid.next = self.rx.out_rec_valid.val();
        self.rx.out_rec_ready.next = self.rxd_rec_ready.val();
        self.rxd_rec_word0.next = self.rx.out_rec_word0.val();
        self.rxd_rec_word1.next = self.rx.out_rec_word1.val();
        self.rxd_pl_valid.next = self.rx.out_pl_valid.val();
        self.rx.out_pl_ready.next = self.rxd_pl_ready.val();
        self.rxd_pl_data.next = self.rx.out_pl_data.val();
        self.rxd_pl_keep.next = self.rx.out_pl_keep.val();
        self.rxd_pl_last.next = self.rx.out_pl_last.val();
        self.host_valid.next = self.rx.host_valid.val();
        self.host_data.next = self.rx.host_data.val();
        self.host_keep.next = self.rx.host_keep.val();
        self.host_last.next = self.rx.host_last.val();
        self.host_user.next = self.rx.host_user.val();
        self.fault.next = self.rx.fault.val();

        self.tx.clock.next = self.clock.val();
        self.tx.fcs_enable.next = self.fcs_enable.val();
        self.tx.hdr_valid.next = self.txd_valid.val();
        self.txd_ready.next = self.tx.hdr_ready.val();
        self.tx.hdr_eth_dst.next = self.txd_eth_dst.val();
        self.tx.hdr_eth_src.next = self.txd_eth_src.val();
        self.tx.hdr_vlan.next = self.txd_vlan.val();
        self.tx.hdr_vlan_tci.next = self.txd_vlan_tci.val();
        self.tx.hdr_ipv6.next = self.txd_ipv6.val();
        self.tx.hdr_ip_src.next = self.txd_ip_src.val();
        self.tx.hdr_ip_dst.next = self.txd_ip_dst.val();
        self.tx.hdr_dscp.next = self.txd_dscp.val();
        self.tx.hdr_ecn.next = self.txd_ecn.val();
        self.tx.hdr_ttl.next = self.txd_ttl.val();
        self.tx.hdr_flow_label.next = self.txd_flow_label.val();
        self.tx.hdr_udp_src_port.next = self.txd_udp_src_port.val();
        self.tx.hdr_opcode.next = self.txd_opcode.val();
        self.tx.hdr_se.next = self.txd_se.val();
        self.tx.hdr_pkey.next = self.txd_pkey.val();
        self.tx.hdr_dest_qp.next = self.txd_dest_qp.val();
        self.tx.hdr_ack_req.next = self.txd_ack_req.val();
        self.tx.hdr_psn.next = self.txd_psn.val();
        self.tx.hdr_va.next = self.txd_va.val();
        self.tx.hdr_rkey.next = self.txd_rkey.val();
        self.tx.hdr_dma_len.next = self.txd_dma_len.val();
        self.tx.hdr_imm.next = self.txd_imm.val();
        self.tx.hdr_aeth_syndrome.next = self.txd_aeth_syndrome.val();
        self.tx.hdr_aeth_msn.next = self.txd_aeth_msn.val();
        self.tx.hdr_payload_len.next = self.txd_payload_len.val();
        self.tx.pl_valid.next = self.txp_valid.val();
        self.txp_ready.next = self.tx.pl_ready.val();
        self.tx.pl_data.next = self.txp_data.val();
        self.tx_valid.next = self.tx.out_valid.val();
        self.tx.out_ready.next = self.tx_ready.val();
        self.tx_data.next = self.tx.out_data.val();
        self.tx_keep.next = self.tx.out_keep.val();
        self.tx_last.next = self.tx.out_last.val();
    }
}

#[cfg(test)]
mod tests {
    use rnic_spec::regs::{addr, registers, Access};

    #[test]
    fn control_register_0_is_port_control() {
        assert_eq!(Some(registers(Access::Control)[0].0), addr("port", "control"));
    }
}
