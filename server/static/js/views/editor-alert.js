/* An editor's own alert (a card that cannot go where it was put, a Save refused): shown
 * by the page's alert, and remembered as shown there, so that the editor's next change
 * takes it away (it was about the position or the set before; it had stayed up through
 * later edits, after the problem was fixed). Another alert shown since is left alone.
 *
 * ctx: the editors' {showError, clearError} (from main.js).
 */

export function editorAlert(ctx) {
  let shown = null;
  const box = () => document.getElementById("alert");
  const text = () => document.getElementById("alert-text");
  return {
    say(err) {
      ctx.showError(err);
      shown = text() ? text().textContent : null;
    },
    drop() {
      if (shown !== null && box() && !box().hidden && text() && text().textContent === shown) {
        ctx.clearError();
      }
      shown = null;
    },
  };
}
