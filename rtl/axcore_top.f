// The whole device in compile order (after the generated axcore_pkg.sv), top module axcore_top:
//   verilator --lint-only -Wall <build>/generated/rtl/axcore_pkg.sv -f rtl/axcore_top.f --top-module axcore_top
-f rtl/sys.f
-f rtl/core/core.f
rtl/top/axcore_top.sv
