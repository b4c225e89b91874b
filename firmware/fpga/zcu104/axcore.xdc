# The core is clocked from pl_clk0 (150 MHz, created by the PS block); no board pins are used.
# Register / DDR interfaces cross no clock domain. Keep the reset synchronizer together.
set_false_path -from [get_pins -hierarchical -filter {NAME =~ *rst_sync*/D}]
