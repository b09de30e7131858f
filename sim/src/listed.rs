//! A clap value parser that lists a flag's values (in `--help` and in the shell
//! completions of `ntsim completions`) without checking them: the command checks the
//! value after parsing, so that a wrong one is a one-line `ntsim: error: ...` like every
//! other bad input, not clap's multi-line message.
use clap::builder::{PossibleValue, TypedValueParser};

/// The values a flag takes, shown and completed, not enforced ([`crate::listed`]).
#[derive(Clone, Debug)]
pub struct Listed(pub Vec<&'static str>);

impl Listed {
    /// The transport programs of `ntsim nic` ([`crate::nic_cli::PROGRAMS`]).
    pub fn programs() -> Self {
        Self(crate::nic_cli::PROGRAMS.to_vec())
    }
    /// The switch modes (`nt_hdl::mode::MODES`).
    pub fn modes() -> Self {
        Self(nt_hdl::mode::MODES.iter().map(|m| m.name).collect())
    }
    /// The engines that step a device.
    pub fn engines() -> Self {
        Self(vec!["native", "verilator", "compiled"])
    }
    /// The fuzz targets ([`crate::fuzz::TARGETS`]).
    pub fn fuzz_targets() -> Self {
        Self(crate::fuzz::TARGETS.to_vec())
    }
}

impl TypedValueParser for Listed {
    type Value = String;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        Ok(value.to_string_lossy().into_owned())
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.0.iter().map(|v| PossibleValue::new(*v))))
    }
}
