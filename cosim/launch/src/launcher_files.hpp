// Files the Slurm launcher's controller and its array tasks share in the out folder.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "axcore/regress/runner.hpp"

namespace axcore::regress::detail {

std::filesystem::path token_file(const std::filesystem::path& out_dir);  // OUT/slurm/token
std::filesystem::path result_file(const std::filesystem::path& out_dir, const std::string& job_id);
std::string read_text(const std::filesystem::path& p);  // "" when absent
// The result a task wrote, when it is whole and was written by Slurm job `slurm_job` ("A_K").
std::optional<JobResult> read_job_result(const std::filesystem::path& file, const std::string& slurm_job);

}  // namespace axcore::regress::detail
