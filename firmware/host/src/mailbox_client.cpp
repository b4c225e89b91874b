#include "axfw/host/mailbox_client.hpp"

#include <array>
#include <sstream>

#include "axcore/text/hex.hpp"
#include "axfw/host/device_port.hpp"

namespace axcore::fw {
namespace {

using text::hex;

}  // namespace

std::string Completion::describe() const {
  std::ostringstream o;
  o << "submission " << id << ": " << axfw_status_name(status);
  if (status != AXFW_OK) o << " at word " << word << " (detail " << hex(detail) << ", addr " << hex(addr) << ")";
  o << ", " << ops << " ops, " << cycles << " cycles";
  return o.str();
}

std::string StatusPage::describe() const {
  static const char* const states[] = {"boot", "ready", "busy", "fault"};
  const uint32_t s = at(AXFW_ST_STATE);
  std::ostringstream o;
  o << "firmware " << (at(AXFW_ST_FW_VERSION) >> 16) << "." << (at(AXFW_ST_FW_VERSION) & 0xFFFF) << ", state "
    << (s < 4 ? states[s] : "?") << ", spec " << hex(fw_spec_hash()) << " (device " << hex(dev_spec_hash())
    << "), cores " << at(AXFW_ST_CORES) << "; submitted " << at(AXFW_ST_SUBMITTED) << ", completed "
    << at(AXFW_ST_COMPLETED) << ", failed " << at(AXFW_ST_FAILED) << ", ops " << at(AXFW_ST_OPS) << ", tokens "
    << at(AXFW_ST_TOKENS) << ", timeouts " << at(AXFW_ST_TIMEOUTS);
  if (at(AXFW_ST_ERR_CODE))
    o << "; last error " << axfw_status_name(at(AXFW_ST_ERR_CODE)) << " in submission " << at(AXFW_ST_ERR_ID)
      << " at word " << at(AXFW_ST_ERR_WORD) << " (detail " << hex(at(AXFW_ST_ERR_DETAIL)) << ", ERROR_INFO "
      << hex(at(AXFW_ST_ERR_INFO)) << ")";
  return o.str();
}

MailboxClient::MailboxClient(device::Device& dev, uint64_t base, uint64_t scratch, uint64_t scratch_bytes)
    : dev_(dev), base_(base), scratch_(scratch), scratch_bytes_(scratch_bytes) {}

uint32_t MailboxClient::rd(uint64_t off) {
  std::array<uint8_t, 4> b{};
  dev_.ddr_read(base_ + off, b);
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}
void MailboxClient::wr(uint64_t off, uint32_t v) {
  const std::array<uint8_t, 4> b{static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16),
                                 static_cast<uint8_t>(v >> 24)};
  dev_.ddr_write(base_ + off, b);
}

void MailboxClient::attach() {
  const uint32_t magic = rd(4 * AXFW_MB_MAGIC_W);
  if (magic != AXFW_MB_MAGIC)
    throw MailboxError("no firmware mailbox at DDR offset " + hex(base_) + " (magic " + hex(magic) + ", want " +
                       hex(AXFW_MB_MAGIC) + "): is the firmware running and given this address?");
  if (rd(4 * AXFW_MB_VERSION_W) != AXFW_MB_VERSION)
    throw MailboxError("mailbox version " + std::to_string(rd(4 * AXFW_MB_VERSION_W)) + ", this host speaks " +
                       std::to_string(AXFW_MB_VERSION));
  sub_entries_ = rd(4 * AXFW_MB_SUB_ENTRIES_W);
  cmp_entries_ = rd(4 * AXFW_MB_CMP_ENTRIES_W);
}

uint32_t MailboxClient::submit(std::span<const uint32_t> txn, std::span<const Binding> bindings, uint32_t token_timeout,
                               uint32_t poll_timeout) {
  if (!sub_entries_) throw MailboxError("submit before attach()");
  const uint32_t head = rd(4 * AXFW_MB_SUB_HEAD_W), tail = rd(4 * AXFW_MB_SUB_TAIL_W);
  if (head - tail >= sub_entries_)
    throw MailboxError("submission ring full (" + std::to_string(sub_entries_) + " entries)");
  const uint64_t need = 4 * (txn.size() + AXFW_BINDING_WORDS * bindings.size()) + 64;
  if (need > scratch_bytes_)
    throw MailboxError("stream and bindings (" + std::to_string(need) + " bytes) exceed the scratch region");
  if (cursor_ + need > scratch_bytes_) cursor_ = 0;  // completed submissions no longer need their copies
  const uint64_t txn_off = scratch_ + cursor_;
  std::vector<uint8_t> bytes(4 * txn.size());
  for (size_t i = 0; i < txn.size(); ++i)
    for (int b = 0; b < 4; ++b) bytes[4 * i + b] = static_cast<uint8_t>(txn[i] >> (8 * b));
  dev_.ddr_write(txn_off, bytes);
  const uint64_t bind_off = txn_off + ((4 * txn.size() + 63) & ~uint64_t{63});
  std::vector<uint8_t> tb;
  for (const Binding& b : bindings)
    for (uint64_t v : {b.addr, b.bytes})
      for (int k = 0; k < 8; ++k) tb.push_back(static_cast<uint8_t>(v >> (8 * k)));
  if (!tb.empty()) dev_.ddr_write(bind_off, tb);
  cursor_ = bind_off - scratch_ + tb.size();

  const uint64_t base = dev_.ddr_base();
  const uint64_t e = 4 * (AXFW_MB_CTRL_WORDS + AXFW_SUB_WORDS * (head % sub_entries_));
  const uint32_t id = next_id_++;
  const uint64_t txn_addr = base + txn_off, bind_addr = base + bind_off;
  const uint32_t words[AXFW_SUB_WORDS] = {id,
                                          0,
                                          static_cast<uint32_t>(txn_addr),
                                          static_cast<uint32_t>(txn_addr >> 32),
                                          static_cast<uint32_t>(4 * txn.size()),
                                          static_cast<uint32_t>(bindings.size()),
                                          static_cast<uint32_t>(bind_addr),
                                          static_cast<uint32_t>(bind_addr >> 32),
                                          token_timeout,
                                          poll_timeout};
  for (uint32_t w = 0; w < AXFW_SUB_WORDS; ++w) wr(e + 4 * w, words[w]);
  wr(4 * AXFW_MB_SUB_HEAD_W, head + 1);
  return id;
}

std::optional<Completion> MailboxClient::poll() {
  const uint32_t head = rd(4 * AXFW_MB_CMP_HEAD_W), tail = rd(4 * AXFW_MB_CMP_TAIL_W);
  if (head == tail) return std::nullopt;
  const uint64_t e = 4 * (AXFW_MB_CTRL_WORDS + AXFW_SUB_WORDS * sub_entries_ + AXFW_CMP_WORDS * (tail % cmp_entries_));
  Completion c;
  c.id = rd(e + 4 * AXFW_CMP_ID);
  c.status = rd(e + 4 * AXFW_CMP_STATUS);
  c.word = rd(e + 4 * AXFW_CMP_WORD);
  c.detail = rd(e + 4 * AXFW_CMP_DETAIL);
  c.addr = uint64_t{rd(e + 4 * AXFW_CMP_ADDR_HI)} << 32 | rd(e + 4 * AXFW_CMP_ADDR_LO);
  c.ops = rd(e + 4 * AXFW_CMP_OPS);
  c.cycles = rd(e + 4 * AXFW_CMP_CYCLES);
  wr(4 * AXFW_MB_CMP_TAIL_W, tail + 1);
  return c;
}

StatusPage MailboxClient::status() {
  StatusPage p;
  const uint64_t off = AXFW_MB_STATUS_OFFSET(sub_entries_, cmp_entries_);
  for (uint32_t w = 0; w < AXFW_STATUS_WORDS; ++w) p.words[w] = rd(off + 4 * w);
  return p;
}

struct FirmwareInTheLoop::PortHolder {
  explicit PortHolder(device::Device& d) : port(d) {}
  DevicePort port;
};

FirmwareInTheLoop::FirmwareInTheLoop(device::Device& dev, uint32_t entries)
    : FirmwareInTheLoop(dev, dev.ddr_size() - kReservedBytes, entries) {}

FirmwareInTheLoop::FirmwareInTheLoop(device::Device& dev, uint64_t mailbox_offset, uint32_t entries)
    : port_(std::make_unique<PortHolder>(dev)),
      fw_(std::make_unique<axfw>()),
      client_(dev, mailbox_offset, mailbox_offset + ((AXFW_MB_BYTES(entries, entries) + 0xFFF) & ~0xFFFu), 1u << 20),
      mailbox_offset_(mailbox_offset) {
  if (mailbox_offset + kReservedBytes > dev.ddr_size() || AXFW_MB_BYTES(entries, entries) > 0x100000)
    throw MailboxError("the mailbox at DDR offset " + hex(mailbox_offset) + " does not fit the device's " +
                       std::to_string(dev.ddr_size()) + "-byte DDR");
  init_rc_ = axfw_init(fw_.get(), port_->port.port(), dev.ddr_base() + mailbox_offset, entries, entries);
  client_.attach();
}

FirmwareInTheLoop::~FirmwareInTheLoop() = default;

Completion FirmwareInTheLoop::run(std::span<const uint32_t> txn, std::span<const Binding> bindings,
                                  uint32_t token_timeout) {
  const uint32_t id = client_.submit(txn, bindings, token_timeout);
  for (int i = 0; i < 4; ++i) {
    axfw_step(fw_.get());
    if (auto c = client_.poll()) {
      if (c->id != id)
        throw MailboxError("completion for submission " + std::to_string(c->id) + ", expected " + std::to_string(id));
      return *c;
    }
  }
  throw MailboxError("the firmware did not complete submission " + std::to_string(id));
}

}  // namespace axcore::fw
