# Vivado batch flow for axcore on the ZCU104 (xczu7ev-ffvc1156-2-e). Run on a machine with Vivado:
#   vivado -mode batch -source firmware/fpga/zcu104/build.tcl -tclargs <repo> <generated_pkg.sv> <out_dir>
# <generated_pkg.sv>: axcore_pkg.sv generated with firmware/fpga/small.yaml applied:
#   build/fpga-small/generated/rtl/axcore_pkg.sv of a tree configured with
#   -DAXCORE_SPEC_OVERLAY=$PWD/firmware/fpga/small.yaml (docs/bringup.md).
# The block design: Zynq PS (M_AXI_HPM0_FPD -> axcore AXI-lite registers at 0xA000_0000,
# 32 MiB window; axcore AXI master -> S_AXI_HP0_FPD for DDR), pl_clk0 = 150 MHz, pl_resetn0.
set repo [lindex $argv 0]
set pkg  [lindex $argv 1]
set out  [lindex $argv 2]
create_project -force axcore_zcu104 $out -part xczu7ev-ffvc1156-2-e
set_property board_part xilinx.com:zcu104:part0:1.1 [current_project]
add_files -norecurse $pkg
# The device's synthesizable files in the compile order of rtl/axcore_top.f (the simulation-only
# ax_sys_tb_top is not listed there), then the Vivado top with the Xilinx interface names.
proc flist {repo f} {
  set files {}
  set fh [open $repo/$f]
  foreach line [split [read $fh] "\n"] {
    set line [string trim $line]
    if {$line eq "" || [string match "//*" $line]} { continue }
    if {[regexp {^-f\s+(\S+)} $line -> sub]} { set files [concat $files [flist $repo $sub]]; continue }
    if {[regexp {^\+incdir\+(\S+)} $line -> dir]} { lappend ::incdirs $repo/$dir; continue }
    lappend files $repo/$line
  }
  close $fh
  return $files
}
set incdirs {}
add_files -norecurse [flist $repo rtl/axcore_top.f]
set_property include_dirs $incdirs [current_fileset]
add_files -norecurse $repo/firmware/fpga/zcu104/axcore_zcu104_top.v
set_property file_type {Verilog} [get_files axcore_zcu104_top.v]
add_files -fileset constrs_1 $repo/firmware/fpga/zcu104/axcore.xdc
set_property top axcore_zcu104_top [current_fileset]
update_compile_order -fileset sources_1

create_bd_design axcore_bd
create_bd_cell -type ip -vlnv xilinx.com:ip:zynq_ultra_ps_e zynq
apply_bd_automation -rule xilinx.com:bd_rule:zynq_ultra_ps_e -config {apply_board_preset 1} [get_bd_cells zynq]
set_property -dict [list CONFIG.PSU__USE__M_AXI_GP0 {1} CONFIG.PSU__USE__S_AXI_GP2 {1} \
  CONFIG.PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ {150}] [get_bd_cells zynq]
# axcore_zcu104_top (a Verilog module reference around axcore_top) carries X_INTERFACE_INFO: s_axi
# (AXI4-Lite, 25 address bits), m_axi (AXI4, 40 address bits), aclk, aresetn. The automation adds
# the interconnects and a proc_sys_reset on pl_clk0 / pl_resetn0.
create_bd_cell -type module -reference axcore_zcu104_top axcore
# The small configuration's AXI master is 128 bits (firmware/fpga/small.yaml axi_data_bytes: 16).
set_property CONFIG.C_M_AXI_DATA_WIDTH {128} [get_bd_cells axcore]
apply_bd_automation -rule xilinx.com:bd_rule:axi4 \
  -config {Master /zynq/M_AXI_HPM0_FPD Clk_master {/zynq/pl_clk0} Clk_slave {/zynq/pl_clk0} Clk_xbar {/zynq/pl_clk0}} \
  [get_bd_intf_pins axcore/s_axi]
apply_bd_automation -rule xilinx.com:bd_rule:axi4 \
  -config {Master /axcore/m_axi Clk_master {/zynq/pl_clk0} Clk_slave {/zynq/pl_clk0} Clk_xbar {/zynq/pl_clk0}} \
  [get_bd_intf_pins zynq/S_AXI_HP0_FPD]
# The register window: 32 MiB at 0xA000_0000 (the UIO node of axcore-overlay.dtsi); the core
# reaches all of DDR_LOW (the u-dma-buf reservation lies in it).
assign_bd_address -offset 0xA0000000 -range 32M [get_bd_addr_segs axcore/s_axi/reg0]
assign_bd_address
validate_bd_design
save_bd_design
make_wrapper -files [get_files axcore_bd.bd] -top
add_files -norecurse [glob $out/axcore_zcu104.gen/sources_1/bd/axcore_bd/hdl/axcore_bd_wrapper.v]
set_property top axcore_bd_wrapper [current_fileset]

launch_runs synth_1 -jobs 4
wait_on_run synth_1
open_run synth_1
report_utilization -file $out/utilization_synth.rpt
launch_runs impl_1 -to_step write_bitstream -jobs 4
wait_on_run impl_1
open_run impl_1
report_timing_summary -file $out/timing.rpt
report_utilization -file $out/utilization_impl.rpt
write_hw_platform -fixed -include_bit -force $out/axcore_zcu104.xsa
