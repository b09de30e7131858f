use crate::logic::Logic;
use crate::probe::Probe;

/// The [Block] trait is required for all circuitry that
/// can be simulated by RustHDL.  If you want to be able
/// to simulate a circuit, the corresponding struct must
/// impl [Block].  Normally, this is done via the `#[derive(LogicBlock)]`
/// construct, and you will rarely, if ever, need to
/// impl the [Block] trait yourself.
pub trait Block: Logic {
    /// Connects the internal signals of the circuit - used to initialize the circuit
    fn connect_all(&mut self);
    /// Propogate changes from inputs to outputs within the circuit
    fn update_all(&mut self);
    /// Returns `true` if anything in the circuit has changed (outputs or internal state)
    fn has_changed(&self) -> bool;
    /// The visitor pattern - allows a circuit to be probed by a [Probe] struct.
    fn accept(&self, name: &str, probe: &mut dyn Probe);
    /// (patch) One settle pass like [Block::update_all] that skips the blocks nothing
    /// can have changed (see [Tracker]); returns `true` if anything in the circuit changed
    /// in this pass, as [Block::has_changed] would after [Block::update_all].
    /// `parent_ran`: the owner's `update` ran in this pass (so it may have written this
    /// block's inputs). The default evaluates everything, as [Block::update_all] does.
    fn update_all_tracked(&mut self, _tracker: &mut Tracker, _parent_ran: bool) -> bool {
        self.update_all();
        self.has_changed()
    }
    /// (patch) Commits this field's own signals: a signal commits itself, an interface or
    /// an array of signals its signals; a block (whose signals its own visit commits) does
    /// nothing. `true` if one changed.
    fn commit_signals(&mut self) -> bool {
        false
    }
    /// (patch) Visits this field's blocks with [Block::update_all_tracked]: a block itself,
    /// an array its elements; a signal or an interface has none.
    fn visit_blocks(&mut self, tracker: &mut Tracker, parent_ran: bool) -> bool {
        self.update_all_tracked(tracker, parent_ran)
    }
}

/// (patch) Change tracking for settle passes (`Block::update_all_tracked`).
///
/// A pass of [Block::update_all] calls every block's `update`, then commits the block's
/// signals, so a value crosses one level of hierarchy per pass. A tracked pass visits a
/// derived block thus: commit its own signals (so the inputs its owner wrote in this pass
/// are visible at once), run `update` only if something in its subtree changed in the
/// last pass or in that commit, commit again, then visit its child blocks. A block's
/// `update` reads only the signals of its own subtree and state that changes only on a
/// clock edge (itself a signal change), so when nothing there changed it would write what
/// it wrote before, which is committed already. A child is visited only when its owner's
/// `update` ran in this pass or its subtree changed in the last pass: otherwise nothing can
/// have written its signals, and the whole subtree is skipped. The tracker keeps, per block
/// of `#[derive(LogicBlock)]` in visiting order, whether its subtree changed in the last
/// pass and how many such blocks the subtree holds. A *full* pass (the first one, and after
/// [Tracker::force_full], e.g. when a caller may have written a signal deep inside the
/// circuit) runs every `update` and records the flags anew. Passes differ from
/// [Block::update_all]'s (fewer, each doing less); the values a settle converges to are the
/// same.
#[derive(Debug, Clone)]
pub struct Tracker {
    /// Per block, in visiting order: did its subtree change in the last pass, and how many
    /// tracked blocks its subtree holds (itself included).
    entries: Vec<(bool, u32)>,
    pos: usize,
    full: bool,
}

impl Default for Tracker {
    fn default() -> Self {
        Self::new()
    }
}

impl Tracker {
    /// A tracker whose first pass is full.
    pub fn new() -> Self {
        Self {
            entries: Vec::new(),
            pos: 0,
            full: true,
        }
    }
    /// Makes the next pass a full one.
    pub fn force_full(&mut self) {
        self.full = true;
    }
    /// One settle pass over `top`; `true` if anything changed.
    pub fn pass<B: Block>(&mut self, top: &mut B) -> bool {
        self.pos = 0;
        let changed = top.update_all_tracked(self, true);
        if self.full {
            self.entries.truncate(self.pos);
            self.full = false;
        }
        changed
    }
    /// Called by a derived block on entry: its index and whether its `update` must run, or
    /// `None` when the whole subtree is skipped.
    #[doc(hidden)]
    #[inline]
    pub fn enter(&mut self, parent_ran: bool) -> Option<(usize, bool)> {
        let me = self.pos;
        self.pos += 1;
        if self.full {
            if me == self.entries.len() {
                self.entries.push((true, 1));
            }
            return Some((me, true));
        }
        let (dirty, size) = self.entries[me];
        if !dirty && !parent_ran {
            self.pos = me + size as usize;
            return None;
        }
        Some((me, dirty))
    }
    /// Called by a derived block on exit with whether its subtree changed in this pass.
    #[doc(hidden)]
    #[inline]
    pub fn leave(&mut self, me: usize, changed: bool) {
        self.entries[me] = (changed, (self.pos - me) as u32);
    }
}

/// (patch) [Block::commit_signals] of every element of a `Vec` or an array.
fn commit_each<'a, B: Block + 'a>(xs: impl IntoIterator<Item = &'a mut B>) -> bool {
    let mut changed = false;
    for x in xs {
        changed |= x.commit_signals();
    }
    changed
}

/// (patch) [Block::visit_blocks] of every element of a `Vec` or an array.
fn visit_each<'a, B: Block + 'a>(
    xs: impl IntoIterator<Item = &'a mut B>,
    tracker: &mut Tracker,
    parent_ran: bool,
) -> bool {
    let mut changed = false;
    for x in xs {
        changed |= x.visit_blocks(tracker, parent_ran);
    }
    changed
}

impl<B: Block> Block for Vec<B> {
    fn connect_all(&mut self) {
        for x in self {
            x.connect_all();
        }
    }

    fn update_all(&mut self) {
        for x in self {
            x.update_all();
        }
    }

    fn commit_signals(&mut self) -> bool {
        commit_each(self)
    }

    fn visit_blocks(&mut self, tracker: &mut Tracker, parent_ran: bool) -> bool {
        visit_each(self, tracker, parent_ran)
    }

    fn has_changed(&self) -> bool {
        for x in self {
            if x.has_changed() {
                return true;
            }
        }
        false
    }

    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        for x in self.iter().enumerate() {
            let name = format!("{}${}", name, x.0);
            x.1.accept(&name, probe);
        }
    }
}

impl<B: Block, const P: usize> Block for [B; P] {
    fn connect_all(&mut self) {
        for x in self {
            x.connect_all();
        }
    }

    fn update_all(&mut self) {
        for x in self {
            x.update_all();
        }
    }

    fn commit_signals(&mut self) -> bool {
        commit_each(self)
    }

    fn visit_blocks(&mut self, tracker: &mut Tracker, parent_ran: bool) -> bool {
        visit_each(self, tracker, parent_ran)
    }

    fn has_changed(&self) -> bool {
        for x in self {
            if x.has_changed() {
                return true;
            }
        }
        false
    }

    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        for x in self.iter().enumerate() {
            let name = format!("{}${}", name, x.0);
            x.1.accept(&name, probe);
        }
    }
}
