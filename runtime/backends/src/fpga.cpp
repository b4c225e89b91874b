#include "axcore/runtime/fpga.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <sstream>
#include <thread>

#include "axcore/text/hex.hpp"
#include "axcore/trace/record.hpp"

namespace axcore::runtime {
namespace {

namespace P = spec::param;

using text::hex;

uint64_t number(std::string_view s, const std::string& what) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty())
    throw device::DeviceError(what + ": '" + std::string(s) + "' is not a number");
  return v;
}

uint64_t sysfs_number(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::string s;
  if (!(f >> s)) throw device::DeviceError("fpga: cannot read " + p.string() + " (is the driver loaded?)");
  return number(s, p.string());
}

}  // namespace

// ---- Mapping -----------------------------------------------------------------------------

Mapping::Mapping(const std::filesystem::path& path, uint64_t offset, uint64_t bytes, bool create) : size_(bytes) {
  fd_ = ::open(path.c_str(), O_RDWR | O_SYNC | (create ? O_CREAT : 0), 0600);
  if (fd_ < 0) throw device::DeviceError("fpga: cannot open " + path.string() + ": " + std::strerror(errno));
  if (create && ::ftruncate(fd_, static_cast<off_t>(offset + bytes)) != 0) {
    const int e = errno;
    ::close(fd_);
    throw device::DeviceError("fpga: cannot size " + path.string() + ": " + std::strerror(e));
  }
  ptr_ = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, static_cast<off_t>(offset));
  if (ptr_ == MAP_FAILED) {
    const int e = errno;
    ::close(fd_);
    throw device::DeviceError("fpga: cannot mmap " + std::to_string(bytes) + " bytes of " + path.string() + " at " +
                              hex(offset) + ": " + std::strerror(e));
  }
}

Mapping::~Mapping() {
  if (ptr_ && ptr_ != MAP_FAILED) ::munmap(ptr_, size_);
  if (fd_ >= 0) ::close(fd_);
}

// ---- UioBoard ----------------------------------------------------------------------------

UioConfig parse_uio_config(std::string_view s) {
  UioConfig c;
  bool dma = false;
  while (!s.empty()) {
    const size_t comma = s.find(',');
    const std::string_view item = s.substr(0, comma);
    s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) throw device::DeviceError("fpga: '" + std::string(item) + "' is not KEY=VALUE");
    const std::string_view k = item.substr(0, eq), v = item.substr(eq + 1);
    if (k == "uio")
      c.regs = std::string(v);
    else if (k == "regs_bytes")
      c.regs_bytes = number(v, "regs_bytes");
    else if (k == "dma") {
      c.dma = std::string(v);
      dma = true;
    } else if (k == "mem") {
      const size_t colon = v.find(':');
      if (colon == std::string_view::npos)
        throw device::DeviceError("fpga: mem= wants PHYS:BYTES, got '" + std::string(v) + "'");
      c.dma = "/dev/mem";
      c.dma_phys = number(v.substr(0, colon), "mem phys");
      c.dma_offset = c.dma_phys;
      c.dma_bytes = number(v.substr(colon + 1), "mem bytes");
      dma = true;
    } else {
      throw device::DeviceError("fpga: unknown key '" + std::string(k) + "' (expected uio=, dma=, mem=, regs_bytes=)");
    }
  }
  if (c.regs.empty() || !dma)
    throw device::DeviceError("fpga: the board needs uio=/dev/uioN and dma=/dev/udmabufN or mem=PHYS:BYTES");
  return c;
}

UioBoard::UioBoard(const UioConfig& cfg) : cfg_(cfg) {
  uint64_t regs_bytes = cfg.regs_bytes;
  if (!regs_bytes)
    regs_bytes = sysfs_number(std::filesystem::path("/sys/class/uio") / cfg.regs.filename() / "maps/map0/size");
  regs_ = std::make_unique<Mapping>(cfg.regs, 0, regs_bytes);
  uint64_t dma_bytes = cfg.dma_bytes;
  phys_ = cfg.dma_phys;
  if (!dma_bytes || !phys_) {
    const auto sys = std::filesystem::path("/sys/class/u-dma-buf") / cfg.dma.filename();
    if (!dma_bytes) dma_bytes = sysfs_number(sys / "size");
    if (!phys_) phys_ = sysfs_number(sys / "phys_addr");
  }
  dma_ = std::make_unique<Mapping>(cfg.dma, cfg.dma_offset, dma_bytes);
  const uint32_t id = read32(spec::tile_addr(0, P::shim_row, spec::shim::ID.offset));
  if (id != spec::kIdMagic)
    throw device::DeviceError("fpga: " + cfg.regs.string() + " reads ID " + hex(id) + ", an axcore device reads " +
                              hex(spec::kIdMagic));
  const uint64_t hash = uint64_t{read32(spec::tile_addr(0, P::shim_row, spec::shim::SPEC_HASH_HI.offset))} << 32 |
                        read32(spec::tile_addr(0, P::shim_row, spec::shim::SPEC_HASH_LO.offset));
  if (hash != spec::kSpecHash)
    throw device::DeviceError("fpga: the bitstream implements spec hash " + hex(hash) + ", this runtime spec hash " +
                              hex(spec::kSpecHash));
  cores_ = spec::shim::Config::decode_word(read32(spec::tile_addr(0, P::shim_row, spec::shim::CONFIG.offset))).cores;
  if (cores_ < 1 || cores_ > P::max_cores)
    throw device::DeviceError("fpga: CONFIG reports " + std::to_string(cores_) + " cores");
}

std::string UioBoard::describe() const {
  return "UIO " + cfg_.regs.string() + " (" + std::to_string(regs_->size()) + " bytes), DMA " + cfg_.dma.string() +
         " at " + hex(phys_) + " (" + std::to_string(dma_->size()) + " bytes)";
}

uint32_t UioBoard::read32(uint64_t addr) {
  if ((addr & 3) || addr + 4 > regs_->size())
    throw device::DeviceError("fpga: register " + hex(addr) + " is outside the " + std::to_string(regs_->size()) +
                              "-byte window");
  return regs_->words()[addr / 4];
}

void UioBoard::write32(uint64_t addr, uint32_t value) {
  if ((addr & 3) || addr + 4 > regs_->size())
    throw device::DeviceError("fpga: register " + hex(addr) + " is outside the " + std::to_string(regs_->size()) +
                              "-byte window");
  std::atomic_thread_fence(std::memory_order_seq_cst);  // DMA data before the doorbell
  regs_->words()[addr / 4] = value;
}

void UioBoard::flush(uint64_t, uint64_t) { std::atomic_thread_fence(std::memory_order_seq_cst); }
void UioBoard::invalidate(uint64_t, uint64_t) { std::atomic_thread_fence(std::memory_order_seq_cst); }

void UioBoard::wait_cycles(uint64_t cycles) {
  std::this_thread::sleep_for(std::chrono::microseconds(std::max<uint64_t>(1, cycles / P::clock_mhz)));
}

// ---- FakeBoard ---------------------------------------------------------------------------

FakeBoard::FakeBoard(device::Device& backing, const std::filesystem::path& log)
    : dev_(backing), path_(log), log_(log), dma_log_(log.string() + ".dma", std::ios::binary) {
  if (!log_ || !dma_log_) throw device::DeviceError("fake board: cannot write " + log.string());
  // The DMA buffer is a mapped file, as a u-dma-buf is a mapped device node.
  const auto mem = log.string() + ".mem";
  dma_ = std::make_unique<Mapping>(mem, 0, backing.ddr_size(), true);
  std::filesystem::remove(mem);  // the mapping keeps it alive
  log_ << "# axcore-board-log v1\n# backing " << backing.backend() << " cores " << backing.cores() << " ddr "
       << backing.ddr_size() << "\n";
}

std::string FakeBoard::describe() const {
  return "fake board over the " + std::string(dev_.backend()) + " device, logging to " + path_.string();
}

uint32_t FakeBoard::read32(uint64_t addr) {
  const uint32_t v = dev_.read32(addr);
  log_ << "R " << hex(addr) << ' ' << hex(v) << '\n';
  ++events_;
  return v;
}
void FakeBoard::write32(uint64_t addr, uint32_t value) {
  log_ << "W " << hex(addr) << ' ' << hex(value) << '\n';
  ++events_;
  dev_.write32(addr, value);
}
void FakeBoard::flush(uint64_t offset, uint64_t bytes) {
  const auto data = dma_->bytes().subspan(offset, bytes);
  dev_.ddr_write(offset, data);
  dma_log_.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(bytes));
  log_ << "F " << hex(offset) << ' ' << bytes << ' ' << hex(trace::fnv1a64(data)) << '\n';
  dma_log_bytes_ += bytes;
  ++events_;
}
void FakeBoard::invalidate(uint64_t offset, uint64_t bytes) {
  const auto data = dma_->bytes().subspan(offset, bytes);
  dev_.ddr_read(offset, data);
  log_ << "I " << hex(offset) << ' ' << bytes << ' ' << hex(trace::fnv1a64(data)) << '\n';
  ++events_;
}
void FakeBoard::wait_cycles(uint64_t cycles) {
  log_ << "T " << cycles << '\n';
  ++events_;
  dev_.advance(cycles);
}

// ---- FpgaDevice --------------------------------------------------------------------------

FpgaDevice::FpgaDevice(std::unique_ptr<Board> board) : board_(std::move(board)) {
  if (!board_) throw device::DeviceError("fpga: no board");
}

uint64_t FpgaDevice::cycle() const {
  const uint32_t lo = board_->read32(spec::tile_addr(0, P::shim_row, spec::shim::CYCLE_LO.offset));
  const uint32_t hi = board_->read32(spec::tile_addr(0, P::shim_row, spec::shim::CYCLE_HI.offset));
  return uint64_t{hi} << 32 | lo;
}

void FpgaDevice::run_until_idle(uint64_t timeout_cycles) {
  const uint64_t status = spec::tile_addr(0, P::shim_row, spec::shim::STATUS.offset);
  try {
    poll32(status, 0, 1, timeout_cycles);
  } catch (const device::TimeoutError& e) {
    throw device::TimeoutError(std::string("fpga: the device stayed busy (shim STATUS.busy): ") + e.what());
  }
}

void FpgaDevice::check(uint64_t addr, uint64_t n, const char* what) const {
  const uint64_t size = board_->dma_memory().size();
  if (addr > size || n > size - addr)
    throw device::DeviceError(std::string("fpga: DDR ") + what + " [" + hex(addr) + ", +" + std::to_string(n) +
                              ") is outside the " + std::to_string(size) + "-byte DMA buffer");
}

void FpgaDevice::ddr_write(uint64_t addr, std::span<const uint8_t> bytes) {
  check(addr, bytes.size(), "write");
  std::memcpy(board_->dma_memory().data() + addr, bytes.data(), bytes.size());
  board_->flush(addr, bytes.size());
}

void FpgaDevice::ddr_read(uint64_t addr, std::span<uint8_t> bytes) {
  check(addr, bytes.size(), "read");
  board_->invalidate(addr, bytes.size());
  std::memcpy(bytes.data(), board_->dma_memory().data() + addr, bytes.size());
}

// ---- replay ------------------------------------------------------------------------------

ReplayResult replay_board_log(const std::filesystem::path& path, device::Device& dev, size_t max_mismatches) {
  std::ifstream log(path);
  std::ifstream dma(path.string() + ".dma", std::ios::binary);
  if (!log) throw device::DeviceError("replay: cannot open " + path.string());
  ReplayResult r;
  std::string line;
  size_t lineno = 0;
  auto bad = [&](const std::string& msg) {
    if (r.mismatches.size() < max_mismatches) r.mismatches.push_back("line " + std::to_string(lineno) + ": " + msg);
  };
  while (std::getline(log, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string op, a, b, c;
    in >> op >> a >> b >> c;
    const std::string where = path.string() + " line " + std::to_string(lineno);
    ++r.events;
    if (op == "W") {
      dev.write32(number(a, where), static_cast<uint32_t>(number(b, where)));
      ++r.writes;
    } else if (op == "R") {
      const uint32_t got = dev.read32(number(a, where));
      ++r.reads;
      if (got != number(b, where)) bad("R " + a + ": the board read " + b + ", the replay " + hex(got));
    } else if (op == "T") {
      dev.advance(number(a, where));
    } else if (op == "F") {
      std::vector<uint8_t> data(number(b, where));
      if (!dma.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size())))
        throw device::DeviceError("replay: " + where + ": the .dma file ends before this flush");
      dev.ddr_write(number(a, where), data);
    } else if (op == "I") {
      std::vector<uint8_t> data(number(b, where));
      dev.ddr_read(number(a, where), data);
      if (trace::fnv1a64(data) != number(c, where))
        bad("I " + a + " " + b + ": the board's DMA data hash " + c + ", the replay's " + hex(trace::fnv1a64(data)));
    } else {
      throw device::DeviceError("replay: " + where + ": unknown event '" + op + "'");
    }
  }
  return r;
}

}  // namespace axcore::runtime
