// Trace monitor: hands a unit's task and write events to the C++ harness (rtl/sim) through DPI,
// sampled at the rising edge that ends the cycle they happened in. Simulation only; `Unit`
// is the axcore::trace::Unit value, `Row` the tile row.
module ax_trace_mon
  import ax_rtl_pkg::*;
#(
  parameter int unsigned Row  = 0,
  parameter int unsigned Unit = 0
) (
  input logic       clk_i,
  input mon_task_t  task_i,
  input mon_write_t write_i
);
`ifdef VERILATOR
  import "DPI-C" function void ax_trace_task(input int unsigned row, input int unsigned unit,
                                             input bit start, input int unsigned addr,
                                             input int unsigned bytes, input int unsigned word);
  import "DPI-C" function void ax_trace_write(input int unsigned row, input int unsigned unit,
                                              input bit first, input bit last,
                                              input longint unsigned addr,
                                              input int unsigned nbytes, input bit [511:0] data);
  always_ff @(posedge clk_i) begin
    if (task_i.valid) begin
      ax_trace_task(Row, Unit, task_i.start, 32'(task_i.addr), task_i.bytes, task_i.word);
    end
    if (write_i.valid) begin
      ax_trace_write(Row, Unit, write_i.first, write_i.last, 64'(write_i.addr),
                     32'(write_i.nbytes), write_i.data);
    end
  end
`else
  logic unused;
  assign unused = ^{clk_i, task_i, write_i};
`endif
endmodule
