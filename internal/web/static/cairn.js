// Cairn's pages work without JavaScript; this file only adds conveniences.
"use strict";

document.addEventListener("click", (event) => {
  // Buttons with data-confirm ask before their form is sent.
  const button = event.target.closest("[data-confirm]");
  if (button && !window.confirm(button.dataset.confirm)) {
    event.preventDefault();
  }
});

// Markdown editors (textarea[data-markdown]) get Write and Preview tabs: the
// preview is rendered by the server (POST /-/markup, with the form's CSRF
// token), so it shows exactly what the comment will look like.
function enhanceEditor(textarea) {
  const form = textarea.form;
  const token = form && form.querySelector("input[name=_csrf]");
  if (!token) {
    return;
  }
  const tabs = document.createElement("div");
  tabs.className = "editor-tabs";
  tabs.setAttribute("role", "tablist");
  const write = document.createElement("button");
  const preview = document.createElement("button");
  for (const [b, label] of [[write, "Write"], [preview, "Preview"]]) {
    b.type = "button";
    b.className = "link";
    b.textContent = label;
    b.setAttribute("role", "tab");
    tabs.appendChild(b);
  }
  const pane = document.createElement("div");
  pane.className = "markdown editor-preview";
  pane.hidden = true;
  pane.setAttribute("role", "tabpanel");
  pane.setAttribute("aria-live", "polite");
  textarea.before(tabs);
  textarea.after(pane);
  const show = (previewing) => {
    write.setAttribute("aria-selected", String(!previewing));
    preview.setAttribute("aria-selected", String(previewing));
    textarea.hidden = previewing;
    pane.hidden = !previewing;
  };
  show(false);
  write.addEventListener("click", () => { show(false); textarea.focus(); });
  preview.addEventListener("click", async () => {
    const body = new FormData();
    body.set("_csrf", token.value);
    body.set("text", textarea.value);
    body.set("context", textarea.dataset.markdown || "");
    pane.textContent = "Loading preview…";
    show(true);
    try {
      const response = await fetch("/-/markup", { method: "POST", body, credentials: "same-origin" });
      if (!response.ok) {
        throw new Error(response.statusText);
      }
      pane.innerHTML = await response.text(); // sanitized by the server's renderer
      if (!textarea.value.trim()) {
        pane.textContent = "Nothing to preview.";
      }
    } catch (err) {
      pane.textContent = "The preview could not be loaded: " + err.message;
    }
  });

  // Files dropped on the editor join the form's file input, if it has one.
  const files = form.querySelector("input[type=file][name=files]");
  if (files && window.DataTransfer) {
    textarea.addEventListener("dragover", (event) => {
      if (event.dataTransfer && Array.from(event.dataTransfer.types).includes("Files")) {
        event.preventDefault();
        textarea.classList.add("dropping");
      }
    });
    textarea.addEventListener("dragleave", () => textarea.classList.remove("dropping"));
    textarea.addEventListener("drop", (event) => {
      if (!event.dataTransfer || event.dataTransfer.files.length === 0) {
        return;
      }
      event.preventDefault();
      textarea.classList.remove("dropping");
      const all = new DataTransfer();
      for (const f of files.files) {
        all.items.add(f);
      }
      for (const f of event.dataTransfer.files) {
        all.items.add(f);
      }
      files.files = all.files;
      files.dispatchEvent(new Event("change", { bubbles: true }));
    });
  }
}

document.querySelectorAll("textarea[data-markdown]").forEach(enhanceEditor);

// Long lists (the files of a large pull request) load their next page
// when the reader reaches its link (a[data-load-more], whose value selects
// the items); without JavaScript the link opens that page.
function loadMore(link) {
  const selector = link.dataset.loadMore;
  const pager = link.closest("nav") || link;
  let loading = false;
  const observer = new IntersectionObserver(async (entries) => {
    if (loading || !entries.some((e) => e.isIntersecting)) {
      return;
    }
    loading = true;
    try {
      const response = await fetch(link.href, { credentials: "same-origin" });
      if (!response.ok) {
        throw new Error(response.statusText);
      }
      const doc = new DOMParser().parseFromString(await response.text(), "text/html");
      for (const item of doc.querySelectorAll(selector)) {
        pager.before(document.adoptNode(item));
      }
      const next = doc.querySelector("a[data-load-more]");
      if (next) {
        link.href = next.href;
        loading = false;
      } else {
        observer.disconnect();
        link.remove();
      }
    } catch (err) {
      observer.disconnect(); // the link still works by hand
    }
  }, { rootMargin: "600px" });
  observer.observe(link);
}

document.querySelectorAll("a[data-load-more]").forEach(loadMore);
