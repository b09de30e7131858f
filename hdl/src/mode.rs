//! The switch's modes (its admission policies): one enum, [`SwitchMode`], and one
//! descriptor table, [`MODES`], read by `ntsim switch --mode`, `ntsim run`'s TOML
//! (`mode = "trim"`), `ntsim fuzz`'s targets (`switch-<mode>`), the FPGA flow's rows
//! (`switch2_p4@<mode>`), the simulation drivers and the golden models.
//!
//! A mode's name is what every interface reads and prints. The switch ([`crate::switch2`])
//! runs every mode; its inputs select one (`cfg.trim`, `tof.on`, `bolt.on`).
use std::fmt;

/// A switch mode. Serde reads and writes it by name (`"droptail"`, `"trim"`,
/// `"tofino-trim"`, `"bolt"`); an unknown name is an error that lists the known ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SwitchMode {
    /// Drop a packet that does not fit.
    #[default]
    DropTail,
    /// Ideal trimming (paper 002 §2).
    Trim,
    /// Tofino-style trimming (paper 002 §3-§5).
    TofinoTrim,
    /// Drop-tail plus Bolt (thesis Algorithms 7 and 9).
    Bolt,
}

/// What a mode is and where it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModeInfo {
    pub mode: SwitchMode,
    /// The name every interface reads and prints.
    pub name: &'static str,
    /// One line for `--help`-style listings.
    pub about: &'static str,
}

/// Every mode, in [`SwitchMode`] order.
pub const MODES: [ModeInfo; 4] = [
    ModeInfo {
        mode: SwitchMode::DropTail,
        name: "droptail",
        about: "drop a packet that does not fit",
    },
    ModeInfo {
        mode: SwitchMode::Trim,
        name: "trim",
        about: "ideal trimming: a DATA packet that does not fit goes on as its 64-byte header (paper 002 §2)",
    },
    ModeInfo {
        mode: SwitchMode::TofinoTrim,
        name: "tofino-trim",
        about: "Tofino-style trimming: meters, deflect-on-drop, the control loop (paper 002 §3-§5)",
    },
    ModeInfo {
        mode: SwitchMode::Bolt,
        name: "bolt",
        about: "drop-tail plus Bolt: SRC, PRU, SM (thesis Algorithms 7 and 9)",
    },
];

impl SwitchMode {
    /// Every mode, in table order.
    pub const ALL: [SwitchMode; 4] = [
        SwitchMode::DropTail,
        SwitchMode::Trim,
        SwitchMode::TofinoTrim,
        SwitchMode::Bolt,
    ];

    /// The mode's row of [`MODES`].
    pub fn info(self) -> &'static ModeInfo {
        &MODES[self as usize]
    }

    /// Its name (`"tofino-trim"`).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The mode named `name`, or an error naming the known ones.
    pub fn parse(name: &str) -> Result<Self, String> {
        MODES
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.mode)
            .ok_or_else(|| format!("unknown mode {name:?}; known: {}", Self::names()))
    }

    /// The known names, comma-separated, in table order.
    pub fn names() -> String {
        MODES.map(|m| m.name).join(", ")
    }
}

impl fmt::Display for SwitchMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SwitchMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        SwitchMode::parse(s)
    }
}

impl serde::Serialize for SwitchMode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for SwitchMode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        SwitchMode::parse(&s).map_err(serde::de::Error::custom)
    }
}
