// Where a command's evidence goes, checked before a job is submitted, so that a result is
// never computed only to be refused or lost afterwards. No gRPC.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace torchscan {

// The files a result writes into its folder: report.json + report.html, or comparison.json +
// comparison.html.
std::vector<std::string> EvidenceFiles(bool comparison);
// The files a calibration writes: calibration.json + calibration.html (report/calibration_html.h).
std::vector<std::string> CalibrationFiles();

// Whether `dir` (--output) can take `files`, before anything runs:
//   InvalidArgument "--output: X is a file, not a folder ..." when `dir` or a folder on its
//     way exists as something other than a folder;
//   InvalidArgument "--output: ... is not writable by you ..." when `dir`, or the nearest
//     existing folder above it (where it would be created), cannot be written;
//   AlreadyExists "--output: X already holds report.json ...; choose another folder, or add
//     --force to replace it" when a file would be overwritten and `force` is false. With
//     `per_machine` (several daemons: each machine's evidence goes to dir/<machine>/), the
//     files are looked for in every folder directly under `dir`.
// All map to exit 2. OK when the files can be written.
absl::Status CheckOutputFolder(const std::string& dir, const std::vector<std::string>& files, bool force,
                               bool per_machine = false);

// Without --output: the current folder must be writable, checked before submitting;
// InvalidArgument naming --output otherwise.
absl::Status CheckCurrentFolderWritable();

// Without --output: "./torchscan-<job_id>", or with "-2", "-3" ... appended when that name is
// taken (a private daemon numbers its jobs from job-000001 every time). Not created here.
std::string DefaultOutputFolder(const std::string& job_id);

// `history NAME` without --output: "./torchscan-history-<NAME>", the name's characters other
// than ASCII letters, digits, '.', '_' and '-' each made '_', and cut to 100 characters (a name
// is free text: "/" or ".." must not lead elsewhere). The same folder on every run, so that a
// rerun reuses the report pages it holds.
std::string DefaultHistoryFolder(const std::string& name);

// The file `history` writes into its folder (beside reports/ and, with --against,
// EvidenceFiles(true)): history.html. A folder holding it is a history folder that later runs
// update in place.
std::string HistoryPageFile();

}  // namespace torchscan
