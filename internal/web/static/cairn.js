// Cairn's pages work without JavaScript; this file only adds conveniences.
"use strict";
document.addEventListener("click", (event) => {
  // Buttons with data-confirm ask before their form is sent.
  const button = event.target.closest("[data-confirm]");
  if (button && !window.confirm(button.dataset.confirm)) {
    event.preventDefault();
  }
});
