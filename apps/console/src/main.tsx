import { render } from 'preact';

function App() {
  return (
    <main>
      <h1>Switchyard console</h1>
    </main>
  );
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
