#include "axcore/runtime/backend.hpp"

#include <map>

#include "axcore/runtime/fpga.hpp"
#include "axcore/runtime/fsim_device.hpp"
#include "axcore/runtime/ref_backend.hpp"
#include "axcore/runtime/regfile_device.hpp"

namespace axcore::runtime {

// Defined by tlm_backend.cpp / rtl_backend.cpp when those models are built (else no-ops here).
void register_builtin_simulators();

namespace {

// The registry itself, with no registration side effects (register_device_factory adds to it).
std::map<std::string, DeviceFactory, std::less<>>& registry() {
  static std::map<std::string, DeviceFactory, std::less<>> f = [] {
    std::map<std::string, DeviceFactory, std::less<>> m;
    m["regfile"] = [](const BackendConfig& c) {
      RegFileOptions o;
      o.cores = c.cores;
      return std::unique_ptr<device::Device>(std::make_unique<RegFileDevice>(o));
    };
    m["fsim"] = [](const BackendConfig& c) {
      return std::unique_ptr<device::Device>(std::make_unique<FsimDevice>(c.cores));
    };
    return m;
  }();
  return f;
}

// The registry with the built-in simulators added once. They register through
// register_device_factory(), which uses registry() directly, so this never re-enters itself.
std::map<std::string, DeviceFactory, std::less<>>& factories() {
  static bool once = (register_builtin_simulators(), true);
  (void)once;
  return registry();
}

// The fpga backend owns the simulated device behind a fake board.
class FakeBoardDevice : public FpgaDevice {
 public:
  FakeBoardDevice(std::unique_ptr<device::Device> backing, const std::string& log)
      : FpgaDevice(std::make_unique<FakeBoard>(*backing, log)), backing_(std::move(backing)) {}

 private:
  std::unique_ptr<device::Device> backing_;  // outlives nothing that uses it: FpgaDevice's board is destroyed first
};

std::unique_ptr<device::Device> make_fpga(const BackendConfig& cfg) {
  if (cfg.board.rfind("fake=", 0) == 0) {
    std::string log = cfg.board.substr(5), dev = "regfile";
    if (auto comma = log.find(",device="); comma != std::string::npos) {
      dev = log.substr(comma + 8);
      log = log.substr(0, comma);
    }
    if (dev == "fpga") throw RunError("fpga: a fake board cannot sit on another fpga device");
    return std::make_unique<FakeBoardDevice>(make_device(dev, cfg), log);
  }
  if (cfg.board.empty())
    throw RunError(
        "fpga: name the board: --board uio=/dev/uioN,dma=/dev/udmabufN (or mem=PHYS:BYTES), or "
        "--board fake=LOGFILE");
  return std::make_unique<FpgaDevice>(std::make_unique<UioBoard>(parse_uio_config(cfg.board)));
}

class DeviceBackend : public Backend {
 public:
  DeviceBackend(std::string name, std::unique_ptr<device::Device> dev) : name_(std::move(name)), dev_(std::move(dev)) {}
  std::string_view name() const override { return name_; }
  RunResult run(const Bundle& b, const Arrays& in, const RunOptions& opt) override {
    return run_on_device(*dev_, b, in, opt);
  }
  device::Device* device() override { return dev_.get(); }

 private:
  std::string name_;
  std::unique_ptr<device::Device> dev_;
};

class RefBackend : public Backend {
 public:
  std::string_view name() const override { return "ref"; }
  RunResult run(const Bundle& b, const Arrays& in, const RunOptions& opt) override { return run_ref(b, in, opt); }
};

std::string known() {
  std::string s;
  for (const auto& n : backend_names()) s += " " + n;
  return s;
}

}  // namespace

void register_device_factory(const std::string& name, DeviceFactory f) { registry()[name] = std::move(f); }

std::vector<std::string> backend_names() {
  std::vector<std::string> r{"ref", "fpga"};
  for (const auto& [k, v] : factories()) r.push_back(k);
  return r;
}

std::unique_ptr<device::Device> make_device(std::string_view name, const BackendConfig& cfg) {
  if (name == "fpga") return make_fpga(cfg);
  auto it = factories().find(name);
  if (it == factories().end()) {
    if (name == "tlm" || name == "rtl")
      throw UnavailableError(
          "backend '" + std::string(name) + "' is not built in this tree (" +
          (name == "tlm" ? "sc_models/ has no axcore::tlm target" : "rtl/sim has no axcore::rtl target") +
          "); this build has:" + known());
    throw RunError("unknown backend '" + std::string(name) + "'; this build has:" + known());
  }
  return it->second(cfg);
}

std::unique_ptr<Backend> make_backend(std::string_view name, const BackendConfig& cfg) {
  if (name == "ref") return std::make_unique<RefBackend>();
  return std::make_unique<DeviceBackend>(std::string(name), make_device(name, cfg));
}

}  // namespace axcore::runtime
