/** The frame of a signed-in console: its sections as links, "Sign out", and the page. */
import type { ComponentChildren } from 'preact';

export interface Section {
  readonly path: string;
  readonly name: string;
}

export function Shell(props: { title: string; sections: readonly Section[]; path: string; onSignOut: () => void; children: ComponentChildren }) {
  return (
    <>
      <header class="container">
        <nav aria-label="Console">
          <ul>
            <li>
              <strong>{props.title}</strong>
            </li>
          </ul>
          <ul class="sections">
            {props.sections.map((section) => {
              const current = props.path === section.path || props.path.startsWith(`${section.path}/`);
              return (
                <li key={section.path}>
                  <a href={`#${section.path}`} aria-current={current ? 'page' : undefined}>
                    {section.name}
                  </a>
                </li>
              );
            })}
            <li>
              <button type="button" class="outline secondary" onClick={props.onSignOut}>
                Sign out
              </button>
            </li>
          </ul>
        </nav>
      </header>
      <main class="container">{props.children}</main>
    </>
  );
}
