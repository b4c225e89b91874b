# The core is clocked from pl_clk0 (150 MHz, created by the PS block); no board pins are used.
# Register / DDR interfaces cross no clock domain. aresetn enters axcore_zcu104_top's reset
# synchroniser (rst_sync_q, asynchronous assert): its asynchronous clear is not a timed path; the
# synchronised release into the core is (recovery / removal at 150 MHz).
set_false_path -to [get_pins -hierarchical -filter {NAME =~ *rst_sync_q_reg*/CLR}]
