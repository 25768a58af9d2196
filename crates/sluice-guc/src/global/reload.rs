//! Applying the configuration files (PostgreSQL's `ProcessConfigFileInternal`):
//! at startup, on reload, and without applying for `pg_file_settings`.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::{GlobalConfig, State, BUILTIN_DEFAULTS};
use crate::conffile::{parse_file, ConfigItem, Parsed};
use crate::error::{FileOutcome, GucError};
use crate::registry::{self, Context};
use crate::source::Source;
use crate::validate::valid_custom_name;

/// The file ALTER SYSTEM writes, in the data directory, read last.
pub(crate) const AUTO_CONF_FILE: &str = "postgresql.auto.conf";

/// The row text for a line whose value could not be applied.
const NOT_APPLIED: &str = "setting could not be applied";

/// What a reload did, for the server log (PostgreSQL logs the same lines).
#[derive(Debug, Default)]
pub struct ReloadReport {
    /// `parameter "x" changed to "y"`: name and value as written in the file.
    pub changed: Vec<(String, String)>,
    /// `parameter "x" removed from configuration file, reset to default`.
    pub reset_to_default: Vec<String>,
    /// Postmaster settings whose file value differs from the running one.
    pub pending_restart: Vec<String>,
    /// The summary error (`configuration file "f" contains errors; ...`)
    /// with the individual errors inside, if there were any.
    pub error: Option<GucError>,
}

/// Files read for one processing round, and where parsing failed if it did.
pub(super) struct ReadFiles {
    /// The items and errors.
    parsed: Parsed,
    /// The file to name in the summary if parsing failed.
    failed: Option<String>,
}

impl GlobalConfig {
    /// reload -- read the configuration files again and apply them (SIGHUP,
    /// `pg_reload_conf()`). Sessions see the changes at their next sync.
    pub fn reload(&self) -> ReloadReport {
        let _serial = self.reload_lock.lock();
        let files = self.read_files(false);
        let mut state = self.state.write();
        state.generation += 1;
        let (_, report) = self.process(&mut state, files, Context::Sighup);
        self.generation.store(state.generation, Ordering::Release);
        report
    }

    /// file_settings -- the `pg_file_settings` view: every line of the files
    /// as a reload would see it, marked applied or with its error, without
    /// applying anything.
    pub fn file_settings(&self) -> Vec<ConfigItem> {
        let files = self.read_files(true);
        let mut scratch = self.state.read().clone();
        self.process(&mut scratch, files, Context::Sighup).0
    }

    /// read_files -- parse the main file and then, if it parsed, the
    /// ALTER SYSTEM file (missing is fine). No lock is needed.
    pub(super) fn read_files(&self, first_error_only: bool) -> ReadFiles {
        let mut parsed = Parsed { first_error_only, ..Parsed::default() };
        let Some(files) = self.files() else { return ReadFiles { parsed, failed: None } };
        let main = files.config_file.to_string_lossy().into_owned();
        if !parse_file(&main, true, None, &files.data_dir, 0, &mut parsed) {
            return ReadFiles { parsed, failed: Some(main) };
        }
        if !parse_file(AUTO_CONF_FILE, false, None, &files.data_dir, 0, &mut parsed) {
            return ReadFiles { parsed, failed: Some(AUTO_CONF_FILE.to_string()) };
        }
        ReadFiles { parsed, failed: None }
    }

    /// process_files -- apply read files at startup (`caller` postmaster).
    pub(super) fn process_files(
        &self,
        state: &mut State,
        files: ReadFiles,
        caller: Context,
    ) -> ReloadReport {
        self.process(state, files, caller).1
    }

    /// process -- the whole round: names check, removals, values.
    fn process(
        &self,
        state: &mut State,
        files: ReadFiles,
        caller: Context,
    ) -> (Vec<ConfigItem>, ReloadReport) {
        let ReadFiles { parsed, failed } = files;
        let Parsed { mut items, mut errors, .. } = parsed;
        let mut report = ReloadReport::default();
        if let Some(file) = failed {
            report.error = Some(summary(file, caller, false, errors));
            return (items, report);
        }
        if let Some(file) = check_names(state, &mut items, &mut errors) {
            report.error = Some(summary(file, caller, false, errors));
            return (items, report);
        }
        let mut failed_file = self.revert_removed(state, caller, &mut report, &mut errors);
        if caller == Context::Sighup {
            self.reapply_defaults(state);
        }
        for item in items.iter_mut().filter(|i| !i.ignore) {
            let (Some(name), Some(value)) = (&item.name, &item.value) else { continue };
            let location = Some((Arc::clone(&item.file), item.line));
            match self.set_server(state, name, Some(value), caller, Source::File, location) {
                Ok(changed) => {
                    item.applied = true;
                    if changed && caller == Context::Sighup {
                        report.changed.push((name.clone(), value.clone()));
                    }
                }
                Err(e) => {
                    item.error = Some(NOT_APPLIED.to_string());
                    failed_file.get_or_insert_with(|| item.file.to_string());
                    errors.push(e);
                }
            }
        }
        report.pending_restart =
            state.vars.iter().filter(|v| v.pending_restart).map(|v| v.name().to_string()).collect();
        if let Some(file) = failed_file {
            report.error = Some(summary(file, caller, true, errors));
        }
        (items, report)
    }

    /// revert_removed -- settings that came from the file but are no longer
    /// in it go back to their defaults; postmaster settings cannot, and wait
    /// for a restart. Returns the first file with an error, if any.
    fn revert_removed(
        &self,
        state: &mut State,
        caller: Context,
        report: &mut ReloadReport,
        errors: &mut Vec<GucError>,
    ) -> Option<String> {
        let mut failed = None;
        for index in 0..state.vars.len() {
            let var = &mut state.vars[index];
            if var.value.source != Source::File || var.in_file {
                continue;
            }
            if var.def.context < Context::Sighup {
                var.pending_restart = true;
                errors.push(GucError::RequiresRestart { name: var.name().to_string() });
                failed.get_or_insert_with(|| self.config_file_name());
                continue;
            }
            var.value.source = Source::Default;
            let name = var.name().to_string();
            // Reported whether or not the default differs, as PostgreSQL does.
            if self.set_server(state, &name, None, caller, Source::Default, None).is_ok() {
                report.reset_to_default.push(name);
            }
        }
        failed
    }

    /// reapply_defaults -- computed defaults for settings that just fell back
    /// to their boot value (removed from the file).
    fn reapply_defaults(&self, state: &mut State) {
        let builtin = BUILTIN_DEFAULTS.iter().map(|&(n, v)| (n.to_string(), v.to_string()));
        for (name, value) in builtin.chain(self.defaults.iter().cloned()) {
            let Some(id) = registry::lookup(&name) else { continue };
            if state.vars[id.index()].value.source == Source::Default {
                // These values were accepted at startup; they still parse.
                let _ = self.set_server(
                    state,
                    &name,
                    Some(&value),
                    Context::Postmaster,
                    Source::DynamicDefault,
                    None,
                );
            }
        }
    }

    /// The main configuration file's name, for summaries.
    fn config_file_name(&self) -> String {
        self.files().map(|f| f.config_file.to_string_lossy().into_owned()).unwrap_or_default()
    }
}

/// check_names -- every name must be a registered setting or a valid custom
/// name; mark which settings the files mention and ignore all but the last
/// line for each. Returns the file of the first unknown name, if any.
fn check_names(
    state: &mut State,
    items: &mut [ConfigItem],
    errors: &mut Vec<GucError>,
) -> Option<String> {
    for var in &mut state.vars {
        var.in_file = false;
    }
    // The same setting may be spelt differently (case, old aliases).
    let mut last_line: HashMap<String, usize> = HashMap::new();
    let mut failed = None;
    for i in 0..items.len() {
        let Some(name) = items[i].name.clone() else { continue };
        let existing = registry::lookup(&name)
            .map(|id| id.index())
            .or_else(|| state.custom.get(&name.to_ascii_lowercase()).copied());
        let key = match existing {
            Some(index) => {
                state.vars[index].in_file = true;
                index.to_string()
            }
            None if valid_custom_name(&name) => name.to_ascii_lowercase(),
            None => {
                let item = &mut items[i];
                errors.push(GucError::UnrecognizedInFile {
                    name: name.clone(),
                    file: item.file.to_string(),
                    line: item.line,
                });
                item.error = Some("unrecognized configuration parameter".to_string());
                failed.get_or_insert_with(|| item.file.to_string());
                continue;
            }
        };
        if let Some(earlier) = last_line.insert(key, i) {
            items[earlier].ignore = true;
        }
    }
    failed
}

/// summary -- the closing error of a round with errors.
fn summary(file: String, caller: Context, applying: bool, errors: Vec<GucError>) -> GucError {
    let outcome = match (caller, applying) {
        (Context::Postmaster, _) => FileOutcome::Fatal,
        (_, true) => FileOutcome::UnaffectedApplied,
        (_, false) => FileOutcome::NoneApplied,
    };
    GucError::ContainsErrors { file, outcome, errors }
}
