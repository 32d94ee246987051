import assert from "node:assert/strict";
import { JUPYTER_DISPLAY, svgFigure } from "../../lib/viz/display.ts";

Deno.test("svgFigure() shows in Jupyter as image/svg+xml (and as an <img> for nbconvert) under the kernel's own display symbol", () => {
  // the Deno kernel looks the hook up by this registered symbol: a private Symbol() would not display
  assert.equal(JUPYTER_DISPLAY, Symbol.for("Jupyter.display"));
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>';
  const fig = svgFigure(svg);
  assert.equal(fig.svg, svg);
  assert.deepEqual((fig as unknown as Record<symbol, () => unknown>)[Symbol.for("Jupyter.display")]!(), {
    "image/svg+xml": svg,
    "text/html": '<img alt="figure" src="data:image/svg+xml;charset=utf-8,' +
      "%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%22%20width%3D%221%22%20height%3D%221%22%2F%3E" + '">',
  });
});
