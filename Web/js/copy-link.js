// Copying a link shown in a box (a view link, a lesson's link, a class link): to the clipboard when
// the browser allows it, else the box's text selected for the person to copy; `say` tells which.

/**
 * @param {HTMLElement} button  the Copy link button
 * @param {HTMLInputElement} box  the box that shows the link
 * @param {(words: string) => void} say
 * @param {{copied: string, select: string}} words  what to say when copied, and when it is left to the person
 */
export function copyLinkOnClick(button, box, say, { copied, select }) {
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(box.value);
      say(copied);
    } catch {
      box.focus();
      box.select();
      say(select);
    }
  });
}
