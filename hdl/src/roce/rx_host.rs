//! Receive host path: frames that are not RoCE v2 (another EtherType, another IP protocol,
//! another UDP port) leave the receive pipeline whole on their own stream, for a later host
//! queue.
//!
//! The route is known only when the frame's header-complete beat (its second) leaves the delay
//! line, so each beat waits in a hold register until the next beat of its frame shows up (or,
//! being the last, for one cycle), the same scheme as the MAC stage: one beat out per cycle at
//! most, idle cycles anywhere. A frame's last beat leaves one cycle after the frame's verdict
//! was registered, and carries `out_user` set unless that verdict is `not_roce` (a frame routed
//! here by its headers may still fail a later check, such as its FCS or its length).

use crate::stream::KeepFromCount;
use rust_hdl::prelude::*;

hdl_block! {
    pub struct RxHostPath {
        pub clock: Signal<In, Clock>,
        pub in_valid: Signal<In, Bit>,
        pub in_data: Signal<In, Bits<512>>,
        pub in_count: Signal<In, Bits<7>>,
        pub in_last: Signal<In, Bit>,
        /// This is the frame's header-complete beat; `in_route` is valid with it.
        pub in_hc: Signal<In, Bit>,
        pub in_route: Signal<In, Bit>,
        /// The registered verdict of the frame that ended last cycle: not RoCE (a clean pass).
        pub in_verdict_not_roce: Signal<In, Bit>,

        pub out_valid: Signal<Out, Bit>,
        pub out_data: Signal<Out, Bits<512>>,
        pub out_keep: Signal<Out, Bits<64>>,
        pub out_last: Signal<Out, Bit>,
        pub out_user: Signal<Out, Bit>,

        keep: KeepFromCount,

        in_frame: DFF<Bit>,
        route: DFF<Bit>,
        h_valid: DFF<Bit>,
        h_data: DFF<Bits<512>>,
        h_count: DFF<Bits<7>>,
        h_last: DFF<Bit>,
        h_routed: DFF<Bit>,
        o_valid: DFF<Bit>,
        o_data: DFF<Bits<512>>,
        o_count: DFF<Bits<7>>,
        o_last: DFF<Bit>,
        o_user: DFF<Bit>,

        routed: Signal<Local, Bit>,
        take: Signal<Local, Bit>,
    }
}

impl Logic for RxHostPath {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, in_frame, route, h_valid, h_data, h_count, h_last, h_routed, o_valid, o_data, o_count,
            o_last, o_user
        );
        // The frame's route: from its header-complete beat on; unknown (false) before.
        self.routed.next = self.route.q.val() & self.in_frame.q.val();
        if self.in_hc.val() {
            self.routed.next = self.in_route.val();
        }
        // The held beat leaves when the next beat arrives (then the route is known: the first
        // beat's successor is the header-complete beat) or when it is a last beat.
        self.take.next = self.h_valid.q.val() & (self.in_valid.val() | self.h_last.q.val());
        // A held beat that is not its frame's last belongs to the frame now arriving.
        self.o_valid.d.next = self.take.val()
            & (self.h_routed.q.val() | (!self.h_last.q.val() & self.in_valid.val() & self.routed.val()));
        self.o_data.d.next = self.h_data.q.val();
        self.o_count.d.next = self.h_count.q.val();
        self.o_last.d.next = self.h_last.q.val();
        self.o_user.d.next = self.h_last.q.val() & !self.in_verdict_not_roce.val();
        if self.take.val() {
            self.h_valid.d.next = false;
        }
        if self.in_valid.val() {
            self.h_valid.d.next = true;
            self.h_data.d.next = self.in_data.val();
            self.h_count.d.next = self.in_count.val();
            self.h_last.d.next = self.in_last.val();
            self.h_routed.d.next = self.routed.val();
            self.in_frame.d.next = !self.in_last.val();
            self.route.d.next = self.routed.val();
        }

        self.out_valid.next = self.o_valid.q.val();
        self.out_data.next = self.o_data.q.val();
        self.out_last.next = self.o_last.q.val();
        self.out_user.next = self.o_user.q.val();
        self.keep.count.next = self.o_count.q.val();
        self.out_keep.next = self.keep.tkeep.val();
    }
}
