#include <cstdio>

#include "axrun_parts.hpp"

namespace axcore::axrun {

std::string grouped(uint64_t v) {
  const std::string s = std::to_string(v);
  std::string o;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) o += ' ';
    o += s[i];
  }
  return o;
}

Progress::Progress(std::ostream& err, uint64_t total_waits, double interval_s)
    : err_(err), total_(total_waits), interval_(interval_s), t0_(std::chrono::steady_clock::now()) {
  thread_ = std::thread([this] { loop(); });
}

Progress::~Progress() { stop(); }

void Progress::stop() {
  {
    std::lock_guard<std::mutex> l(m_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string Progress::line(uint64_t waits, uint64_t total, uint64_t cycle, double seconds) {
  std::string s = "[axrun] " + std::to_string(waits) + "/" + std::to_string(total) + " waits, cycle " + grouped(cycle) +
                  ", " + grouped(static_cast<uint64_t>(static_cast<double>(cycle) / seconds)) + " cycles/s, ";
  char b[64];
  if (waits == 0 || total == 0) {
    s += "no estimate before the first wait";
  } else {
    std::snprintf(b, sizeof b, "about %.0f s left",
                  seconds * static_cast<double>(total > waits ? total - waits : 0) / static_cast<double>(waits));
    s += b;
  }
  std::snprintf(b, sizeof b, " (%.0f s)", seconds);
  return s + b;
}

void Progress::loop() {
  std::unique_lock<std::mutex> l(m_);
  auto next = t0_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(interval_);
  while (!cv_.wait_until(l, next, [this] { return stop_; })) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    err_ << line(waits_.load(std::memory_order_relaxed), total_, cycle_.load(std::memory_order_relaxed), s) + "\n"
         << std::flush;
    next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(interval_);
  }
}

}  // namespace axcore::axrun
