//! The simulated cards as a [`Bus`]: every register access is an AXI4-Lite transaction on the
//! `rnic_nic` RTL, advancing simulated time; DMA memory is the card's simulated host memory.
//!
//! A card alone is a `NicSim`; a card in a two-card world is a [`WorldCard`], whose accesses
//! run the whole world (both cards and the link) while they take; a card on a live link (a
//! unix datagram socket, a QEMU guest at the other end) is a [`LiveCard`]. Both are a
//! [`SharedCard`] of a [`SharedSim`].

use crate::bus::{check_offset, Bus, BusError, IovaSpace};
use rnic_sim::nic::{BarTimeout, NicSim};
use rnic_sim::live::LiveWorld;
use rnic_sim::world::World;
use std::cell::RefCell;
use std::rc::Rc;

/// Where simulated DMA memory starts: an IOVA above 4 GiB, as an IOMMU would hand out.
pub const SIM_IOVA_BASE: u64 = 0x10_0000_0000;
/// How much simulated DMA memory a card has.
pub const SIM_IOVA_SIZE: u64 = 1 << 32;

fn timeout(t: BarTimeout) -> BusError {
    BusError::Timeout { offset: t.offset, write: t.write }
}

/// A simulated card alone, with its DMA memory.
pub struct SimCard {
    pub nic: NicSim,
    iova: IovaSpace,
}

impl SimCard {
    pub fn new(nic: NicSim) -> SimCard {
        SimCard { nic, iova: IovaSpace::new(SIM_IOVA_BASE, SIM_IOVA_SIZE) }
    }
}

impl Bus for SimCard {
    fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
        check_offset(offset)?;
        self.nic.bar_read(offset).map_err(timeout)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
        check_offset(offset)?;
        self.nic.bar_write(offset, value).map_err(timeout)
    }

    fn dma_alloc(&mut self, len: usize, align: usize) -> Result<u64, BusError> {
        self.iova.alloc(len, align)
    }

    fn dma_free(&mut self, iova: u64) -> Result<(), BusError> {
        let len = self.iova.free(iova)?;
        self.nic.mem.forget(iova, len);
        Ok(())
    }

    fn dma_write(&mut self, iova: u64, data: &[u8]) -> Result<(), BusError> {
        self.iova.check(iova, data.len())?;
        self.nic.mem.write(iova, data);
        Ok(())
    }

    fn dma_read(&mut self, iova: u64, len: usize) -> Result<Vec<u8>, BusError> {
        self.iova.check(iova, len)?;
        Ok(self.nic.mem.read(iova, len))
    }

    fn wait(&mut self, cycles: u64) {
        self.nic.idle(cycles);
    }
}

/// A simulation that several buses (or one) share: BAR0 accesses and idle cycles run all of
/// it; DMA memory is card `card`'s host memory.
pub trait SharedSim {
    fn bar(&mut self, card: usize, offset: u32, write: Option<u32>) -> Result<u32, BarTimeout>;
    fn step(&mut self);
    fn nic(&self, card: usize) -> &NicSim;
    fn nic_mut(&mut self, card: usize) -> &mut NicSim;
}

impl SharedSim for World {
    fn bar(&mut self, card: usize, offset: u32, write: Option<u32>) -> Result<u32, BarTimeout> {
        World::bar(self, card, offset, write)
    }
    fn step(&mut self) {
        World::step(self)
    }
    fn nic(&self, card: usize) -> &NicSim {
        &self.nics[card]
    }
    fn nic_mut(&mut self, card: usize) -> &mut NicSim {
        &mut self.nics[card]
    }
}

/// The live link has one card: `card` is 0.
impl SharedSim for LiveWorld {
    fn bar(&mut self, _card: usize, offset: u32, write: Option<u32>) -> Result<u32, BarTimeout> {
        LiveWorld::bar(self, offset, write)
    }
    fn step(&mut self) {
        LiveWorld::step(self)
    }
    fn nic(&self, _card: usize) -> &NicSim {
        &self.nic
    }
    fn nic_mut(&mut self, _card: usize) -> &mut NicSim {
        &mut self.nic
    }
}

/// One card of a shared simulation, as a bus.
pub struct SharedCard<W> {
    pub world: Rc<RefCell<W>>,
    pub card: usize,
    iova: IovaSpace,
}

impl<W> SharedCard<W> {
    fn new(world: &Rc<RefCell<W>>, card: usize) -> SharedCard<W> {
        SharedCard { world: world.clone(), card, iova: IovaSpace::new(SIM_IOVA_BASE, SIM_IOVA_SIZE) }
    }
}

/// One card of a two-card world: its accesses run both cards and the link.
pub type WorldCard = SharedCard<World>;
/// The card of a live link: its accesses run the card and the link (frames from the socket
/// delivered, frames to it sent).
pub type LiveCard = SharedCard<LiveWorld>;

impl WorldCard {
    /// Both cards of `world`, as buses.
    pub fn pair(world: World) -> (Rc<RefCell<World>>, [WorldCard; 2]) {
        let w = Rc::new(RefCell::new(world));
        let cards = [SharedCard::new(&w, 0), SharedCard::new(&w, 1)];
        (w, cards)
    }
}

impl LiveCard {
    pub fn live(world: LiveWorld) -> (Rc<RefCell<LiveWorld>>, LiveCard) {
        let w = Rc::new(RefCell::new(world));
        let card = SharedCard::new(&w, 0);
        (w, card)
    }
}

impl<W: SharedSim> Bus for SharedCard<W> {
    fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
        check_offset(offset)?;
        self.world.borrow_mut().bar(self.card, offset, None).map_err(timeout)
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
        check_offset(offset)?;
        self.world.borrow_mut().bar(self.card, offset, Some(value)).map(|_| ()).map_err(timeout)
    }

    fn dma_alloc(&mut self, len: usize, align: usize) -> Result<u64, BusError> {
        self.iova.alloc(len, align)
    }

    fn dma_free(&mut self, iova: u64) -> Result<(), BusError> {
        let len = self.iova.free(iova)?;
        self.world.borrow_mut().nic_mut(self.card).mem.forget(iova, len);
        Ok(())
    }

    fn dma_write(&mut self, iova: u64, data: &[u8]) -> Result<(), BusError> {
        self.iova.check(iova, data.len())?;
        self.world.borrow_mut().nic_mut(self.card).mem.write(iova, data);
        Ok(())
    }

    fn dma_read(&mut self, iova: u64, len: usize) -> Result<Vec<u8>, BusError> {
        self.iova.check(iova, len)?;
        Ok(self.world.borrow().nic(self.card).mem.read(iova, len))
    }

    fn wait(&mut self, cycles: u64) {
        let mut w = self.world.borrow_mut();
        for _ in 0..cycles {
            w.step();
        }
    }
}
