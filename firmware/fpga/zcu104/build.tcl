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
add_files [glob $repo/rtl/prim/*.sv $repo/rtl/mem/*.sv $repo/rtl/dma/*.sv $repo/rtl/top/*.sv $repo/rtl/core/*.sv]
add_files -fileset constrs_1 $repo/firmware/fpga/zcu104/axcore.xdc
set_property top axcore_top [current_fileset]

create_bd_design axcore_bd
create_bd_cell -type ip -vlnv xilinx.com:ip:zynq_ultra_ps_e zynq
apply_bd_automation -rule xilinx.com:bd_rule:zynq_ultra_ps_e -config {apply_board_preset 1} [get_bd_cells zynq]
set_property -dict [list CONFIG.PSU__USE__M_AXI_GP0 {1} CONFIG.PSU__USE__S_AXI_GP2 {1} \
  CONFIG.PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ {150} CONFIG.PSU__USE__IRQ0 {1}] [get_bd_cells zynq]
# axcore_top ports are s_*_i/_o (AXI4-Lite) and m_*_i/_o (AXI4): Vivado does not infer interfaces from the
# _i/_o suffixes; a wrapper renaming them to s_axil_* / m_axi_* (not written yet) makes the two below bind.
create_bd_cell -type module -reference axcore_top axcore
apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config {Master /zynq/M_AXI_HPM0_FPD Slave /axcore/s_axil} \
  [get_bd_intf_pins axcore/s_axil]
apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config {Master /axcore/m_axi Slave /zynq/S_AXI_HP0_FPD} \
  [get_bd_intf_pins zynq/S_AXI_HP0_FPD]
assign_bd_address -offset 0xA0000000 -range 32M [get_bd_addr_segs axcore/s_axil/reg0]
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
