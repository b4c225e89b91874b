// A persistent `axrun --serve` process (runtime/tools/src/axrun_serve.cpp): the backend built once
// (the TLM's SystemC elaboration, its library loading and start-up paid once), each job run in a
// child forked from that state. The runner's worker threads keep one per (backend, cores) for the
// TLM jobs (docs/regress.md "TLM server").
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "axcore/regress/process.hpp"

namespace axcore::regress {

class AxrunServer {
 public:
  // Starts `axrun --serve --backend B --cores N`, its stderr to `log`, and waits for "ready"
  // (at most `timeout`). Throws std::runtime_error (with the server's message) when it does not start.
  AxrunServer(const std::filesystem::path& axrun, const std::string& backend, unsigned cores,
              const std::filesystem::path& log, std::chrono::duration<double> timeout);
  ~AxrunServer();  // ends the server (end of its input; SIGKILL if it does not end)
  AxrunServer(const AxrunServer&) = delete;
  AxrunServer& operator=(const AxrunServer&) = delete;

  double startup_seconds() const { return startup_s_; }
  bool alive() const { return pid_ > 0; }

  // One `axrun ARGS` job, as run_process: a header line in `log`, the job's output after it, a
  // footer with the result; killed (its process group) on the deadline or `stop`. `seconds` is the
  // wall-clock from the request to the server's report of the job's end. Throws std::runtime_error
  // when the server is gone (it is then not alive).
  ProcessResult run(const std::vector<std::string>& args, const std::filesystem::path& log,
                    std::chrono::duration<double> timeout, const std::filesystem::path& cwd,
                    const std::atomic<bool>* stop);

 private:
  std::string read_line(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* stop, bool& expired);
  void shut();
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buf_;
  double startup_s_ = 0;
};

// The servers of one worker thread: one per (backend, cores), started at their first job.
struct ServerPool {
  std::filesystem::path axrun, log_dir;
  std::map<std::pair<std::string, unsigned>, std::unique_ptr<AxrunServer>> servers;
  // The server for (backend, cores), started when there is none (or the last one died); `started`
  // says whether this call started it.
  AxrunServer& get(const std::string& backend, unsigned cores, std::chrono::duration<double> timeout, bool& started);
};

}  // namespace axcore::regress
