// ax_sram (rtl/mem/ax_sram.sv) written in the byte-lane write form synthesis tools map to block
// RAM (one write enable per byte lane; the RTL's read-modify-write form makes yosys 0.23 use
// flip-flops). Same ports, same behaviour: firmware/fpga/estimate proves the two equivalent at
// a small geometry with yosys before it synthesises this one at the configuration's geometries.
// Estimate only: rtl/ is what runs; a change of ax_sram to this form belongs to rtl/ (issue 6).
module ax_sram_bytelane #(
  parameter int unsigned Width = 512,
  parameter int unsigned Depth = 1024,
  localparam int unsigned AW = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned BeW = Width / 8
) (
  input  logic             clk_i,
  input  logic             req_i,
  input  logic             we_i,
  input  logic [AW-1:0]    addr_i,
  input  logic [BeW-1:0]   be_i,
  input  logic [Width-1:0] wdata_i,
  output logic [Width-1:0] rdata_o
);
  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] rdata_q;

  always_ff @(posedge clk_i) begin
    if (req_i) begin
      if (we_i) begin
        for (int b = 0; b < BeW; b++)
          if (be_i[b]) mem_q[addr_i][8*b +: 8] <= wdata_i[8*b +: 8];
      end else begin
        rdata_q <= mem_q[addr_i];
      end
    end
  end
  assign rdata_o = rdata_q;
endmodule
